"""What one revision's fan-out costs the gateway and the game: the four seats' `state` messages
and the spectators' one, from the WatchTable message's bytes (issue 45, item 2b).

Before: the game dumps each view as one JSON object; the gateway parses each (json.loads),
validates it into the contract's models with the names joined in (gateway.views) and dumps it.
Now: the game cuts each view where the gateway's fields go (game.view_parts); the gateway
concatenates (gateway.view_text). Run from the repository root:
``python -m bench.fanout_bench [views]``. Mid-hand views of random scopone matches.
"""

from __future__ import annotations

import random
import sys
import time
import uuid

from bench.engine_bench import random_match
from game.client import table_views
from game.engine import compact_json
from game.scopone import ScoponeEngine
from game.servicer import _table_views
from game.tables import RenderedViews
from game.view_parts import cut, facts
from gateway.contract.socket import WsState
from gateway.contract.spectators import WsWatchState
from gateway.view_text import Seating
from gateway.views import game_view, public_view
from lobby.models import Game, Seat
from tavolo.game.v1 import game_pb2

SEATS = ("seat:0", "seat:1", "seat:2", "seat:3")


def _seating(table_id: str) -> Game:
    return Game(id=table_id, game_type="scopone_scientifico", join_code="K7QX2M", options_json="{}",
                seats_total=4, created_at_ms=0, started=True,
                seats=(Seat(0, "m0", "alice", player="alice-player-id-0001"),
                       Seat(1, "bot", "Bot", bot="esperto"),
                       Seat(2, "m2", "carol", player="carol-player-id-0002"),
                       Seat(3, "m3", "dave", player="dave-player-id-00003")))


def _dicts(engine: ScoponeEngine, state: dict, table_id: str, revision: int) -> list[dict]:
    """The four seats' views and the public one, with the platform's fields (game.tables._view)."""
    return [{**engine.view(state, index), "id": table_id, "game_type": "scopone_scientifico",
             "seed_commitment": "0" * 64, "revision": revision} for index in (0, 1, 2, 3, None)]


def _old_game(engine, state, table_id, revision) -> bytes:
    views = [compact_json(view) for view in _dicts(engine, state, table_id, revision)]
    rendered = RenderedViews(revision, "playing", 0, tuple(zip(SEATS, views[:4], strict=True)), views[4])
    return _table_views(rendered).SerializeToString()


def _new_game(engine, state, table_id, revision) -> bytes:
    dicts = _dicts(engine, state, table_id, revision)
    rendered = RenderedViews(revision, "playing", 0, (),
                             parts=tuple(zip(SEATS, (cut(view) for view in dicts[:4]), strict=True)),
                             public_parts=cut(dicts[4], public=True), facts=facts(dicts[0], False))
    return _table_views(rendered).SerializeToString()


def _old_gateway(data: bytes, game: Game, connected: set[int]) -> list[str]:
    views = table_views(game_pb2.WatchTableResponse.FromString(data))
    texts = [WsState(game=game_view(view, game, connected, 2)).model_dump_json() for _, view in views.views]
    assert views.public is not None
    return [*texts, WsWatchState(game=public_view(views.public, game, connected, 2)).model_dump_json()]


def _new_gateway(data: bytes, seating: Seating, connected: set[int]) -> list[str]:
    views = table_views(game_pb2.WatchTableResponse.FromString(data), parts=True)
    texts = [seating.state(parts, connected, 2) for _, parts in views.parts]
    assert views.public_parts is not None
    return [*texts, seating.public_state(views.public_parts, connected, 2)]


def _cpu_us(sides: dict[str, list], rounds: int = 7) -> dict[str, float]:
    """Each side's least CPU time (this process's: others on the machine do not count) per
    call over ``rounds`` interleaved rounds, in microseconds."""
    best = dict.fromkeys(sides, float("inf"))
    for _ in range(rounds):
        for name, calls in sides.items():
            start = time.process_time()
            for call in calls:
                call()
            best[name] = min(best[name], time.process_time() - start)
    return {name: best[name] / len(calls) * 1e6 for name, calls in sides.items()}


def main(count: int = 400) -> None:
    engine = ScoponeEngine()
    rng = random.Random(45)
    states = []
    while len(states) < count:
        run = random_match(engine, rng.randbytes(32), rng)
        states += [s for s in run if engine.status(s) == "playing" and len(s["table"]) + s["moves"] % 40 >= 10]
    states = states[:count]
    table_id = str(uuid.uuid4())
    game, connected = _seating(table_id), {0, 2}
    seating = Seating(game)
    old = [_old_game(engine, s, table_id, i) for i, s in enumerate(states)]
    new = [_new_game(engine, s, table_id, i) for i, s in enumerate(states)]
    for before, after in zip(old, new, strict=True):  # the same bytes to the sockets
        assert _old_gateway(before, game, connected) == _new_gateway(after, seating, connected)
    cpu = _cpu_us({
        "game_old": [lambda s=s, i=i: _old_game(engine, s, table_id, i) for i, s in enumerate(states)],
        "game_new": [lambda s=s, i=i: _new_game(engine, s, table_id, i) for i, s in enumerate(states)],
        "gw_old": [lambda d=d: _old_gateway(d, game, connected) for d in old],
        "gw_new": [lambda d=d: _new_gateway(d, seating, connected) for d in new]})
    game_old, game_new, gw_old, gw_new = cpu["game_old"], cpu["game_new"], cpu["gw_old"], cpu["gw_new"]
    print(f"   one revision's fan-out, CPU (4 seats' states + the public one, {count} mid-hand views):")
    print(f"   gateway: {gw_old:7.1f} µs parsed and dumped → {gw_new:6.1f} µs forwarded "
          f"({gw_old / gw_new:.1f} times less)")
    print(f"   game:    {game_old:7.1f} µs as JSON objects  → {game_new:6.1f} µs cut "
          f"(engine views and the message's bytes included)")
    print(f"   message: {sum(map(len, old)) / count:7.0f} bytes          → {sum(map(len, new)) / count:6.0f} bytes")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
