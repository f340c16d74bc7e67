"""The positions of one seat in a finished match: at each of its plays, what that seat knew then.

Read from the public move log alone, never from the seed. In scopone scientifico every card is
dealt at the start of a hand (ten to each seat, none to the table) and every dealt card is played
by the hand's end, and a match ends only at a hand's end; so the seat's hand at its k-th play of
a hand is exactly the cards it plays from then to the hand's end. That is the seat's own hand,
which it always knew; everything else in the Knowledge (the table, the hand's plays so far, the
cards each seat holds, the scores) is public and taken from the log *before* the play. The other
seats' later plays are never read into it: they would reveal what their hands held.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bots.knowledge import Knowledge, Play
from bots.levels import counting
from game.scopone import rules, scoring

SEATS = 4
HAND_PLAYS = 40
CARDS_PER_SEAT = HAND_PLAYS // SEATS
_PLAY_TYPES = ("play", "auto_play")


class UnreadableLog(ValueError):
    """The log is not a finished scopone match this module can read (a hand cut short, an illegal
    play, a seat playing out of turn)."""


@dataclass(frozen=True)
class LoggedPlay:
    """One play of the log: what the public saw."""

    number: int  # the move number in the log
    seat: int
    card: str
    capture: tuple[str, ...]  # sorted
    auto: bool


@dataclass(frozen=True)
class Position:
    """One play of the analysed seat, with the seat's Knowledge just before it."""

    number: int
    hand: int  # from 1
    knowledge: Knowledge
    card: str
    capture: tuple[str, ...]
    auto: bool


def plays_of(moves: Iterable[Mapping[str, Any]]) -> list[LoggedPlay]:
    """The log's plays and auto-plays, in order (acknowledgements, continues, commits, reveals skipped)."""
    found = []
    for move in moves:
        if move.get("type") not in _PLAY_TYPES:
            continue
        payload = move.get("payload") or {}
        try:
            found.append(LoggedPlay(int(move["number"]), _seat_number(move["seat"]), str(payload["card"]),
                                    tuple(sorted(str(c) for c in payload.get("capture") or ())),
                                    bool(move.get("auto", False))))
        except (KeyError, TypeError, ValueError) as error:
            raise UnreadableLog(f"move {move.get('number')}: not a play ({error})") from None
    return found


def positions(plays: Sequence[LoggedPlay], seat: int, options: Mapping[str, Any]) -> list[Position]:
    """Every play of ``seat``, each with the seat's Knowledge just before it. UnreadableLog when the
    plays do not make whole hands of a legal match."""
    if len(plays) % HAND_PLAYS:
        raise UnreadableLog(f"{len(plays)} plays: the log ends inside a hand")
    asso = bool(options.get("asso_pigliatutto", False))
    napola = bool(options.get("napola", True))
    scores = {"A": 0, "B": 0}
    found: list[Position] = []
    for start in range(0, len(plays), HAND_PLAYS):
        hand_plays = plays[start:start + HAND_PLAYS]
        _check_dealt(hand_plays)
        table: list[str] = []
        piles: dict[str, list[str]] = {"A": [], "B": []}
        scope = {"A": 0, "B": 0}
        last_capturer: int | None = None
        counts = [CARDS_PER_SEAT] * SEATS
        before: list[Play] = []
        for index, play in enumerate(hand_plays):
            if before and play.seat != (before[-1].seat + 1) % SEATS:
                raise UnreadableLog(f"move {play.number}: seat {play.seat} played out of turn")
            if play.seat == seat:
                own = tuple(sorted(p.card for p in hand_plays[index:] if p.seat == seat))
                knowledge = Knowledge(
                    seat=seat, hand=own, table=tuple(sorted(table)), plays=tuple(before),
                    card_counts=(counts[0], counts[1], counts[2], counts[3]), scores=dict(scores),
                    options=dict(options), legal=legal(own, table, asso))
                found.append(Position(play.number, start // HAND_PLAYS + 1, knowledge, play.card, play.capture,
                                      play.auto))
            capture = _checked(play, table, asso)
            team = "AB"[counting.team(play.seat)]
            taken = counting.taken(play.card, capture, table, asso)
            if taken:
                if counting.is_scopa(play.card, capture, table, asso, index == HAND_PLAYS - 1):
                    scope[team] += 1
                piles[team].extend(taken)
                last_capturer = play.seat
            table = counting.after(table, play.card, capture, asso)
            counts[play.seat] -= 1
            before.append(Play(play.seat, play.card, capture))
        if table and last_capturer is not None:
            piles["AB"[counting.team(last_capturer)]].extend(table)
        teams, _ = scoring.score_hand(piles, scope, napola)
        for team in scoring.TEAMS:
            scores[team] += teams[team]["points"]
    return found


def legal(hand: Sequence[str], table: Sequence[str], asso: bool) -> tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]:
    """The seat's legal plays as the game view's ``legal`` lists them (bots.knowledge.Knowledge.legal)."""
    return tuple((card, tuple(tuple(c) for c in sorted(sorted(c) for c in rules.captures(card, list(table), asso))))
                 for card in sorted(hand))


def _checked(play: LoggedPlay, table: list[str], asso: bool) -> tuple[str, ...]:
    """The play's capture as the rules read it (a sweep takes the whole table); UnreadableLog when illegal."""
    options = [tuple(sorted(c)) for c in rules.captures(play.card, table, asso)]
    if rules.sweeps(play.card, table, asso):
        return tuple(sorted(table))
    if play.capture not in options:
        raise UnreadableLog(f"move {play.number}: {play.card} cannot take {list(play.capture)}")
    return play.capture


def _check_dealt(hand_plays: Sequence[LoggedPlay]) -> None:
    cards = [p.card for p in hand_plays]
    if len(set(cards)) != HAND_PLAYS or any(sum(p.seat == s for p in hand_plays) != CARDS_PER_SEAT
                                            for s in range(SEATS)):
        raise UnreadableLog(f"the hand ending at move {hand_plays[-1].number} is not forty cards, ten a seat")


def _seat_number(seat: object) -> int:
    """The log names seats "seat:0".."seat:3"."""
    number = int(str(seat).rsplit(":", 1)[-1])
    if not 0 <= number < SEATS:
        raise ValueError(f"seat {seat}")
    return number
