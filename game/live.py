"""A table's state at one position of its log, and its cached form (the snapshot)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from game.log_store import Position, TableRecord


@dataclass(frozen=True)
class Live:
    """The engine state of a table after ``move_count`` moves, at ``revision``. Read-only."""

    table_id: str
    game_type: str
    seats: tuple[str, ...]
    seed_commitment: str
    created_ms: int
    state: dict[str, Any]
    move_count: int
    revision: int
    status: str
    updated_ms: int
    finished_ms: int | None = None

    @property
    def position(self) -> Position:
        return Position(self.move_count, self.revision, self.seed_commitment)

    def snapshot_json(self) -> str:
        """The cached form; ``revision`` comes first so that the cache's compare-and-set reads it
        without parsing the rest."""
        return json.dumps({
            "revision": self.revision,
            "move_count": self.move_count,
            "table_id": self.table_id,
            "game_type": self.game_type,
            "seats": list(self.seats),
            "seed_commitment": self.seed_commitment,
            "status": self.status,
            "created_ms": self.created_ms,
            "updated_ms": self.updated_ms,
            "finished_ms": self.finished_ms,
            "state": self.state,
        }, separators=(",", ":"))

    @classmethod
    def from_snapshot(cls, text: str | None, table_id: str) -> Live | None:
        """The state a snapshot holds; None when it is missing, corrupt or of another table."""
        if not text:
            return None
        try:
            doc = json.loads(text)
            live = cls(
                table_id=doc["table_id"], game_type=doc["game_type"], seats=tuple(doc["seats"]),
                seed_commitment=doc["seed_commitment"], created_ms=doc["created_ms"],
                state=doc["state"], move_count=doc["move_count"], revision=doc["revision"],
                status=doc["status"], updated_ms=doc["updated_ms"], finished_ms=doc["finished_ms"],
            )
        except (ValueError, TypeError, KeyError):
            return None
        ints = (live.created_ms, live.move_count, live.revision, live.updated_ms)
        if (live.table_id != table_id or not isinstance(live.state, dict)
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in ints)
                or not all(isinstance(s, str) for s in live.seats)):
            return None
        return live


def extends(base: Live, target: TableRecord | Live) -> bool:
    """Whether ``target``'s log extends ``base``'s: only moves were added since (no take-back).

    Every change adds one to the revision and one move (an append) or minus one (a take-back),
    so the revisions and the move counts grew by the same amount exactly when all were appends.
    """
    return (base.seed_commitment == target.seed_commitment
            and base.move_count <= target.move_count
            and target.revision - base.revision == target.move_count - base.move_count)
