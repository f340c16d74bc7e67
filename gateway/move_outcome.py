"""The truth about a move whose Act call failed on the platform's side: made, refused, or unknown.

An Act that times out (an overloaded game service, 10 s) or loses its connection may have been
applied all the same: telling the player ``unavailable`` ("nothing changed, send it again")
would be a lie then, and the move sent again would be refused. So before answering, the gateway
reads the table's log, the truth of a table, for the player's move since the revision they
saw:

- found: the move was **made**; the player gets the state after it;
- not found, and the move named a ``revision`` the table has left: it was **refused** and never
  can land (``concurrent_move``);
- not found, and the game service answered the call (its own error: the call is over) or never
  got it (no connection could be made): **nothing changed** (``unavailable``, as before);
- otherwise (the call may still be running, or the log cannot be read): **unknown**
  (``unconfirmed``): the next ``state`` shows whether it was made.

The log is read only on this path, never for a move that was answered.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

from game.client import LogEntry
from services.errors import ServiceError

log = logging.getLogger(__name__)

# What a failed call says when grpcio never found a connection to send it on (services.errors
# from_rpc_error writes "<code>: <details>" for a status the service did not send itself).
_NEVER_SENT = "UNAVAILABLE: failed to connect to all addresses"
# The statuses grpcio itself gives a call that was sent and then lost sight of: the deadline
# passed, or the connection broke, while the service may still be working on it.
_IN_DOUBT = ("DEADLINE_EXCEEDED:", "CANCELLED:", "UNAVAILABLE:", "UNKNOWN:", "INTERNAL:")
_LOG_PAGES = 20  # a match's log fits in a few pages; a longer read is no answer worth waiting for


class Outcome(enum.Enum):
    MADE = "made"
    REFUSED = "refused"
    NOT_MADE = "not_made"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    view: dict | None = None  # MADE: the seat's view after it, when it could be read


def _never_sent(error: ServiceError) -> bool:
    return error.message.startswith(_NEVER_SENT)


def _in_doubt(error: ServiceError) -> bool:
    """Whether the call may still be running in the game service: grpcio's own status (a
    deadline, a broken connection), not an answer of the service's."""
    return not _never_sent(error) and error.message.startswith(_IN_DOUBT)


def _same(value: object, sent: object) -> bool:
    if isinstance(value, list) and isinstance(sent, list):
        return sorted(map(str, value)) == sorted(map(str, sent))
    return value == sent


def is_the_move(entry: LogEntry, seat: str, action: dict) -> bool:
    """Whether ``entry`` is ``action`` played by ``seat``: the player's own (not automatic)
    move of that type, with every field the action named that the entry records equal (a
    capture in any order)."""
    if entry.seat != seat or entry.auto or entry.type != action.get("action"):
        return False
    return all(_same(entry.payload[key], value) for key, value in action.items()
               if key != "action" and key in entry.payload)


async def _moves_since(game, table_id: str, seen: int | None) -> tuple[int, list[LogEntry]]:
    """The table's revision and the log entries made after revision ``seen`` (all of them when
    ``seen`` is None). Every change adds one to the revision and at most one entry, so they
    are among the last ``revision - seen`` entries."""
    header, moves, after = await game.get_log(table_id, 0, 1)
    if seen is not None:
        if header.revision <= seen:
            return header.revision, []
        first = max(0, header.move_count - (header.revision - seen))
        if first > 0:
            header, moves, after = await game.get_log(table_id, first)
    found = list(moves)
    for _ in range(_LOG_PAGES):
        if not after:
            break
        _, moves, after = await game.get_log(table_id, after)
        found.extend(moves)
    return header.revision, found


async def judge(game, table_id: str, seat: str, action: dict, expected_revision: int | None,
                seen: int | None, failure: ServiceError) -> Verdict:
    """What became of ``action`` by ``seat``, whose Act failed with ``failure``.

    ``expected_revision`` is the revision the move named, ``seen`` the newest this socket had
    been sent when the player acted (the search starts there)."""
    since = expected_revision if expected_revision is not None else seen
    try:
        revision, moves = await _moves_since(game, table_id, since)
    except ServiceError as error:
        log.info("table %s: the outcome of a failed move is not known (%s; log: %s)", table_id,
                 failure.message, error.message)
        return Verdict(Outcome.NOT_MADE if _never_sent(failure) else Outcome.UNKNOWN)
    if any(is_the_move(entry, seat, action) for entry in moves):
        log.info("table %s: a move whose call failed (%s) was made", table_id, failure.message)
        try:
            view = await game.get_view(table_id, seat)
        except ServiceError:
            view = None  # the table's stream brings it
        return Verdict(Outcome.MADE, view)
    if expected_revision is not None and revision != expected_revision:
        return Verdict(Outcome.REFUSED)
    return Verdict(Outcome.UNKNOWN if _in_doubt(failure) else Outcome.NOT_MADE)
