"""The state of a scopone table and the transitions that change it.

The state is plain JSON data (the game service caches it; the move log rebuilds it). The
functions here mutate a fresh ``clone`` and trust their caller (engine.py) to have checked
the move first. Unchanged, never-mutated parts (options, past audit entries, last_play) are
shared between a state and its clone, which is why every state must be treated as read-only.
"""

from __future__ import annotations

from typing import Any

from game import fairness
from game.engine import team_of
from game.scopone import rules, scoring
from game.status import TableStatus

GAME_ID = "scopone_scientifico"
VERSION = "1"
SEATS = 4
CARDS_PER_HAND = 40


COMMIT, REVEAL = "commit", "reveal"  # the phases of seeding
DRAWN = "drawn"  # the option first_dealer of every new game: the first dealer is drawn by lot


def new_table(options: dict[str, Any], seed: bytes, turn_timeout_ms: int, hand_ack_timeout_ms: int,
              now_ms: int, entropy_timeout_ms: int = 10000) -> dict[str, Any]:
    """A table with hand 1 dealt, or seeding first with the option ``player_entropy``; the
    timeouts are copied in so that the table keeps its rules. ``options`` are the normalized
    options as the log keeps them: without ``first_dealer`` (a game from before the draw) seat 0
    leads hand 1."""
    state = {
        "game": GAME_ID,
        "version": VERSION,
        "options": dict(options),
        "seed": seed.hex(),
        "turn_timeout_ms": turn_timeout_ms,
        "hand_ack_timeout_ms": hand_ack_timeout_ms,
        "moves": 0,  # every log entry counts: plays, acks, auto-plays, continues
        "status": TableStatus.PLAYING,
        "hand_number": 0,
        "dealer": None,  # the seat that dealt the current hand; drawn when hand 1 is dealt
        "turn": None,
        "hands": [[] for _ in range(SEATS)],
        "table": [],
        "captured": [[] for _ in range(SEATS)],
        "scope": [0] * SEATS,
        "plays": 0,  # cards played in this hand; the 40th ends it
        "last_capturer": None,
        "last_play": None,
        "turn_deadline_ms": None,
        "hand_end_deadline_ms": None,
        "acknowledged": [],
        "scores": {"A": 0, "B": 0},
        "audit": [],  # the last_hand record of every finished hand
        "winner": None,
        "key": None,  # the deal key K (hex) once the seats' entropy is in; None: the seed keys
        "entropy": None,
    }
    if options.get("player_entropy"):
        state.update(status=TableStatus.SEEDING, entropy={
            "timeout_ms": entropy_timeout_ms, "phase": COMMIT, "deadline_ms": now_ms + entropy_timeout_ms,
            "commits": [None] * SEATS, "values": [None] * SEATS})
        return state
    start_hand(state, 1, now_ms)
    return state


def clone(state: dict[str, Any]) -> dict[str, Any]:
    """A copy whose mutable parts are fresh, so that transitions never touch the input."""
    out = dict(state)
    out["hands"] = [list(h) for h in state["hands"]]
    out["table"] = list(state["table"])
    out["captured"] = [list(c) for c in state["captured"]]
    out["scope"] = list(state["scope"])
    out["acknowledged"] = list(state["acknowledged"])
    out["scores"] = dict(state["scores"])
    out["audit"] = list(state["audit"])
    return out


def seed_of(state: dict[str, Any]) -> bytes:
    return bytes.fromhex(state["seed"])


def key_of(state: dict[str, Any]) -> bytes:
    """What keys every stream (deals, auto-plays): K with player entropy, else the seed."""
    key = state.get("key")
    return bytes.fromhex(key) if key else seed_of(state)


def commit(state: dict[str, Any], seat: int, digest: str, now_ms: int) -> None:
    """A seat's checked commitment; the fourth ends the commit phase."""
    entropy = _entropy(state)
    entropy["commits"] = [digest if s == seat else c for s, c in enumerate(entropy["commits"])]
    if all(entropy["commits"]):
        _open_reveals(state, now_ms)


def reveal(state: dict[str, Any], seat: int, value: str, now_ms: int) -> None:
    """A seat's checked value; the last of the committed seats' deals hand 1."""
    entropy = _entropy(state)
    entropy["values"] = [value if s == seat else v for s, v in enumerate(entropy["values"])]
    if _every_commit_revealed(entropy):
        _deal_with_entropy(state, now_ms)


def entropy_deadline(state: dict[str, Any], now_ms: int) -> None:
    """The phase's time ran out: commits close (the seats that did not commit contribute
    zeros), or reveals do (hand 1 is dealt with what was revealed)."""
    if _entropy(state)["phase"] == COMMIT:
        _open_reveals(state, now_ms)
    else:
        _deal_with_entropy(state, now_ms)


def _entropy(state: dict[str, Any]) -> dict[str, Any]:
    """The state's entropy record, copied so that the transition never touches the input."""
    entropy: dict[str, Any] = dict(state["entropy"])
    state["entropy"] = entropy
    return entropy


def _open_reveals(state: dict[str, Any], now_ms: int) -> None:
    entropy = state["entropy"]
    entropy.update(phase=REVEAL, deadline_ms=now_ms + entropy["timeout_ms"])
    if _every_commit_revealed(entropy):  # nobody committed: nothing to wait for
        _deal_with_entropy(state, now_ms)


def _every_commit_revealed(entropy: dict[str, Any]) -> bool:
    return all(value is not None for value, digest in zip(entropy["values"], entropy["commits"]) if digest)


def _deal_with_entropy(state: dict[str, Any], now_ms: int) -> None:
    values = [bytes.fromhex(v) if v is not None else None for v in state["entropy"]["values"]]
    state["key"] = fairness.deal_key(seed_of(state), values).hex()
    state["entropy"] = {**state["entropy"], "phase": None, "deadline_ms": None}
    start_hand(state, 1, now_ms)


def start_hand(state: dict[str, Any], hand: int, now_ms: int) -> None:
    """Deal hand ``hand`` from the seed; the seat after its dealer leads it, on an empty table."""
    dealer = _dealer_of_hand(state, hand)
    state.update(
        status=TableStatus.PLAYING,
        hand_number=hand,
        dealer=dealer,
        turn=(dealer + 1) % SEATS,
        hands=fairness.deal(key_of(state), hand, SEATS),
        table=[],
        captured=[[] for _ in range(SEATS)],
        scope=[0] * SEATS,
        plays=0,
        last_capturer=None,
        last_play=None,
        turn_deadline_ms=now_ms + state["turn_timeout_ms"],
        hand_end_deadline_ms=None,
        acknowledged=[],
    )


def current_dealer(state: dict[str, Any]) -> int | None:
    """The seat that dealt the current hand; None before hand 1 is dealt."""
    if "dealer" not in state and state["hand_number"]:
        return int((state["hand_number"] - 2) % SEATS)  # a snapshot from before the draw: the old rule
    seat: int | None = state.get("dealer")
    return seat


def _dealer_of_hand(state: dict[str, Any], hand: int) -> int:
    """CONTRACT "Turns and deadlines": the first dealer is seat uniform(4) of stream("dealer")
    (keyed with K under player entropy, so it is drawn only now); each hand after, the next seat.
    A game whose options lack first_dealer is from before the draw: seat 0 led its hand 1, as if
    seat 3 had dealt."""
    if hand > 1:
        previous = current_dealer(state)
        assert previous is not None  # hand 1 set it
        return (previous + 1) % SEATS
    if state["options"].get("first_dealer") == DRAWN:
        return fairness.choose(key_of(state), "dealer", SEATS)
    return SEATS - 1


def play(state: dict[str, Any], seat: int, card: str, capture: list[str], auto: bool, now_ms: int) -> None:
    """Play a checked (card, capture); a capture that empties the table is a scopa, except on the last play."""
    table = state["table"]
    kind = rules.effect(card, capture, table, state["options"]["asso_pigliatutto"])
    state["hands"][seat].remove(card)
    state["plays"] += 1
    last = state["plays"] == CARDS_PER_HAND
    scopa = False
    if kind == rules.LAY:
        table.append(card)
        table.sort()
    else:
        taken = set(capture)
        state["table"] = table = [t for t in table if t not in taken]
        state["captured"][seat].extend([card, *capture])
        state["last_capturer"] = seat
        scopa = kind == rules.TAKE and not table and not last
    if scopa:
        state["scope"][seat] += 1
    state["last_play"] = {"seat": seat, "card": card, "capture": list(capture), "scopa": scopa, "auto": auto}
    if last:
        end_hand(state, now_ms)
    else:
        state["turn"] = (seat + 1) % SEATS
        state["turn_deadline_ms"] = now_ms + state["turn_timeout_ms"]


def end_hand(state: dict[str, Any], now_ms: int) -> None:
    """Leftovers to the last capturer, score the hand, then finish the match or wait for acknowledgements."""
    if state["table"] and state["last_capturer"] is not None:
        state["captured"][state["last_capturer"]].extend(state["table"])
        state["table"] = []
    piles: dict[str, list[str]] = {"A": [], "B": []}
    scope = {"A": 0, "B": 0}
    for seat in range(SEATS):
        piles[team_of(seat)].extend(state["captured"][seat])
        scope[team_of(seat)] += state["scope"][seat]
    teams, award = scoring.score_hand(piles, scope, state["options"]["napola"])
    for team in scoring.TEAMS:
        state["scores"][team] += teams[team]["points"]
    state["audit"].append(
        {"hand": state["hand_number"], "teams": teams, "award": award, "scores": dict(state["scores"])}
    )
    state["turn"] = None
    state["turn_deadline_ms"] = None
    winner = scoring.match_winner(state["scores"], state["options"]["target_score"], teams)
    if winner is not None:
        state["status"] = TableStatus.FINISHED
        state["winner"] = winner
    else:
        state["status"] = TableStatus.HAND_END
        state["acknowledged"] = []
        state["hand_end_deadline_ms"] = now_ms + state["hand_ack_timeout_ms"]


def acknowledge(state: dict[str, Any], seat: int, now_ms: int) -> None:
    """Record a seat's acknowledgement; the fourth deals the next hand."""
    state["acknowledged"] = sorted([*state["acknowledged"], seat])
    if len(state["acknowledged"]) == SEATS:
        start_hand(state, state["hand_number"] + 1, now_ms)
