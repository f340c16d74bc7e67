"""A finished table's compacted log: its whole move list as one archived value (compressed
JSON, game_archive.value), the codec both stores use."""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Sequence

from game.log_store import CorruptLog, LoggedMove

log = logging.getLogger(__name__)

ARCHIVE_FORMAT = 1  # game_archive.format (see the migration 0004_game_archive.sql)


def is_whole(table_id: str, move_count: int, moves: list[LoggedMove]) -> bool:
    """The table's moves are all there, numbered 1, 2, 3...: only such a log is compacted."""
    if [move.number for move in moves] == list(range(1, move_count + 1)):
        return True
    log.error("table %s: its log has %d move rows for a move count of %d, or a gap; it is not "
              "compacted", table_id, len(moves), move_count)
    return False


def encode_archive(moves: Sequence[LoggedMove]) -> bytes:
    """A whole log as one archived value (format 1: migrations/0004_game_archive.sql). The
    payload stays the engine's text, a string inside the JSON, so it comes back byte for byte."""
    rows = [[m.number, m.type, m.seat, m.payload_json, m.auto, m.random, m.created_ms, m.request_id]
            for m in moves]
    return zlib.compress(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode())


def decode_archive(table_id: str, format_: int, value: bytes) -> list[LoggedMove]:
    """The archived moves, in order; CorruptLog when the value cannot be read back."""
    if format_ != ARCHIVE_FORMAT:
        raise CorruptLog(f"table {table_id}: its archived log has the unknown format {format_}")
    try:
        moves = [LoggedMove(number, kind, seat, payload, auto, rnd, created, request)
                 for number, kind, seat, payload, auto, rnd, created, request
                 in json.loads(zlib.decompress(value))]
    except (zlib.error, ValueError, TypeError) as error:
        raise CorruptLog(f"table {table_id}: its archived log cannot be read ({error})") from None
    if [move.number for move in moves] != list(range(1, len(moves) + 1)):
        raise CorruptLog(f"table {table_id}: its archived moves are not numbered 1, 2, 3...")
    return moves

