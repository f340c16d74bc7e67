"""Which plays are legal in scopone scientifico, and the clear refusal of those that are not.

A played card must take a single card of its rank when the table has one (the player picks
which, and no sum may be taken instead); otherwise it must take a set of cards whose ranks add
up to its own when one exists; otherwise it is laid down. With asso pigliatutto an ace facing no
ace on the table takes the whole table (or itself on an empty table).
"""

from __future__ import annotations

from game.engine import GameError
from game.scopone.cards import join, rank

LAY, TAKE, SWEEP = "lay", "take", "sweep"
_LISTED_OPTIONS = 4  # how many alternatives a "capture is required" message names


def sweeps(card: str, table: list[str], asso: bool) -> bool:
    """True when asso pigliatutto applies: an ace, the option on, and no ace on the table."""
    return asso and rank(card) == 1 and all(rank(t) != 1 for t in table)


def combinations(table: list[str], target: int) -> list[list[str]]:
    """Every set of table cards whose ranks add up to ``target``, each sorted, in sorted order."""
    cards = sorted(table)
    found: list[list[str]] = []
    _walk(cards, [rank(c) for c in cards], 0, target, [], found)
    return found


def _walk(cards: list[str], ranks: list[int], start: int, remaining: int, chosen: list[str],
          found: list[list[str]]) -> None:
    """combinations' search, a function of its own: as a closure that calls itself it made a
    reference cycle each call, left to the garbage collector (a young collection every hundred
    moves or so in the game service, each walking some 10,000 objects)."""
    for i in range(start, len(cards)):
        r = ranks[i]
        if r > remaining:
            continue
        chosen.append(cards[i])
        if r == remaining:
            found.append(list(chosen))
        else:
            _walk(cards, ranks, i + 1, remaining - r, chosen, found)
        chosen.pop()


def captures(card: str, table: list[str], asso: bool) -> list[list[str]]:
    """The legal captures of ``card`` (each a sorted list); ``[[]]`` when it takes nothing from the table."""
    if sweeps(card, table, asso):
        return [sorted(table)]
    r = rank(card)
    equal = sorted(t for t in table if rank(t) == r)
    if equal:
        return [[t] for t in equal]
    return combinations(table, r) or [[]]


def legal_plays(hand: list[str], table: list[str], asso: bool) -> list[tuple[str, list[str]]]:
    """All legal (card, capture) plays, sorted by card then capture: CONTRACT's auto-play order."""
    plays = [(card, capture) for card in hand for capture in captures(card, table, asso)]
    plays.sort()
    return plays


def effect(card: str, capture: list[str], table: list[str], asso: bool) -> str:
    """What a legal play does to the table: LAY it down, TAKE the capture, or SWEEP (asso pigliatutto)."""
    if sweeps(card, table, asso):
        return SWEEP
    return TAKE if capture else LAY


def check_play(hand: list[str], table: list[str], card: str, capture: list[str], asso: bool) -> list[str]:
    """The play's capture, sorted (a sweep lists the whole table); raises GameError('illegal_move')."""
    if card not in hand:
        raise _illegal(f"You do not hold {card}")
    seen: set[str] = set()
    for taken in capture:
        if taken in seen:
            raise _illegal(f"{taken} is listed twice in the capture")
        seen.add(taken)
        if taken not in table:
            raise _illegal(f"{taken} is not on the table")
    wanted = sorted(capture)
    if sweeps(card, table, asso):
        whole = sorted(table)
        if wanted and wanted != whole:
            raise _illegal(
                f"{card} cannot take {join(wanted)}: "
                f"with asso pigliatutto the ace takes the whole table ({join(whole)})"
            )
        return whole
    r = rank(card)
    equal = sorted(t for t in table if rank(t) == r)
    if equal:
        if not wanted:
            raise _illegal(f"A capture is required: {card} takes {_alternatives([[t] for t in equal])}")
        if len(wanted) == 1 and wanted[0] in equal:
            return wanted
        raise _illegal(
            f"{card} cannot take {join(wanted)}: a card of rank {r} is on the table, "
            f"so it must take exactly one of {', '.join(equal)}"
        )
    if not wanted:
        options = combinations(table, r)
        if options:
            raise _illegal(f"A capture is required: {card} takes {_alternatives(options)}")
        return wanted
    total = sum(rank(t) for t in wanted)
    if total != r:
        why = f"{wanted[0]} has rank {total}" if len(wanted) == 1 else f"their ranks add up to {total}"
        raise _illegal(f"{card} cannot take {join(wanted)}: {why}, not {r}")
    return wanted


def _alternatives(options: list[list[str]]) -> str:
    named = [join(o) for o in options[:_LISTED_OPTIONS]]
    text = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
    if len(options) > _LISTED_OPTIONS:
        text += f" (or {len(options) - _LISTED_OPTIONS} more)"
    return text


def _illegal(message: str) -> GameError:
    return GameError("illegal_move", message)
