"""The gateway forwards the game's cut views (game.view_parts, gateway.view_text) byte for byte
as the contract's models used to dump the parsed views: whole matches played with random legal
plays and fired deadlines (auto plays, hand ends, the end, player entropy's seeding), every
revision, every seat and the public view, through the WatchTable message and its proto bytes,
under seatings that change (odd names, erased and absent player ids, a bot seat, a seat taken
over, a seat the lobby does not know), who is connected and how many watch.

The oracle is the old path, kept here and nowhere on the live path: json.loads of the view,
gateway.views.game_view / public_view, the WsState / WsWatchState / WsGameOver models' dump.
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from game.client import table_views
from game.servicer import _table_views
from game.view_parts import (
    AFTER_PLAYERS,
    BEFORE_PLAYERS,
    GATEWAY_FIELDS,
    PLAYER_FIELDS,
    PLAYER_GATEWAY_FIELDS,
    cut,
)
from gateway.contract.socket import WsGameOver, WsState
from gateway.contract.spectators import PublicGameView, WsWatchState
from gateway.contract.table import GameView, Player
from gateway.view_text import Seating, game_over
from gateway.views import game_view, public_view
from lobby.models import Game, Seat
from talk.bot_phrases import bot_phrase
from tavolo.game.v1 import game_pb2
from tests.game_service.conftest import SEATS

NAMES = ('alice', 'bo"b\\', "çarlò ✓ \u2028", "dave\n\t\x01\x7f")


def _seatings(table_id: str, game_type: str) -> list[Game]:
    """The seatings a revision is joined with, from plain to odd."""
    def game(seats, join_code="K7QX2M") -> Game:
        return Game(id=table_id, game_type=game_type, join_code=join_code, options_json="{}",
                    seats_total=4, created_at_ms=0, started=True, seats=tuple(seats))
    plain = [Seat(i, f"m{i}", name, player=f"player{i}-id_0123456789") for i, name in enumerate(NAMES)]
    return [
        game(plain),
        game([Seat(0, "m0", "alice", player="player0-id_0123456789"), Seat(1, "bot1", "Bot", bot="esperto"),
              Seat(2, "m2", "deleted player", erased=True),  # an erased member: a made-up id
              Seat(3, "m3", "dave", bot="maestro", took_over=True, player="player3-id_0123456789")]),
        game([Seat(0, "m0", "alice"), Seat(2, "m2", "carol", player="player2-id_0123456789")], join_code="ZZ2345"),  # 1, 3 unknown
    ]


def _old_state(view: dict, game: Game, connected: set[int], spectators: int) -> str:
    return WsState(game=game_view(view, game, connected, spectators)).model_dump_json()


MAX_MATCHES = 4  # matches played until every status and kind of play was seen


def _old_public(view: dict, game: Game, connected: set[int], spectators: int) -> str:
    return WsWatchState(game=public_view(view, game, connected, spectators)).model_dump_json()


def _through_the_wire(message: game_pb2.WatchTableResponse, parts: bool):
    return table_views(game_pb2.WatchTableResponse.FromString(message.SerializeToString()), parts)


async def _match(tables, game_type: str, options: dict, rng: random.Random) -> tuple[int, set[str]]:
    """Play a match to its end, comparing every revision; how many revisions were compared, and
    what they showed (the statuses, ``auto`` plays, ``scopa``)."""
    created = await tables.create_table("", game_type, json.dumps(options), SEATS)
    table_id = created.table_id
    seatings = _seatings(table_id, game_type)
    cut_stream = tables.watch_table(table_id, public=True, parts=True)
    json_stream = tables.watch_table(table_id, public=True)
    compared, seen = 0, set()
    async with contextlib.aclosing(cut_stream), contextlib.aclosing(json_stream):
        while True:
            cut, whole = await anext(cut_stream), await anext(json_stream)
            assert (cut.revision, cut.status) == (whole.revision, whole.status)
            forwarded = _through_the_wire(_table_views(cut), parts=True)
            parsed = _through_the_wire(_table_views(whole), parts=False)
            assert parsed.views and parsed.public is not None
            assert not any(v.view_json for v in _table_views(cut).views)  # nothing twice
            for _ in range(2):  # two joinings of each revision
                game = rng.choice(seatings)
                connected = set(rng.sample(range(4), rng.randint(0, 4)))
                spectators = rng.choice((0, 1, 7, 12345))
                seating = Seating(game)
                for (seat, view), (cut_seat, parts) in zip(parsed.views, forwarded.parts, strict=True):
                    assert seat == cut_seat
                    assert seating.state(parts, connected, spectators) == _old_state(
                        view, game, connected, spectators), (seat, cut.revision)
                assert forwarded.public_parts is not None
                assert seating.public_state(forwarded.public_parts, connected, spectators) == _old_public(
                    parsed.public, game, connected, spectators)
            _same_facts(parsed, forwarded)
            compared += 1
            seen |= {cut.status, *(["auto"] if forwarded.facts.last_play_auto else []),
                     *(["scopa"] if forwarded.facts.last_play_scopa else [])}
            if cut.status == "finished":
                return compared, seen
            await _move(tables, table_id, parsed.views, rng)


def _same_facts(parsed, forwarded) -> None:
    """What the gateway read of the parsed views, the facts give."""
    first = parsed.views[0][1]
    facts = forwarded.facts
    last = first.get("last_play")
    if isinstance(last, dict) and isinstance(last.get("seat"), int):
        assert (facts.last_play_seat, facts.last_play_auto, facts.last_play_scopa) == (
            last["seat"], bool(last.get("auto")), last.get("scopa") is True)
    else:
        assert facts.last_play_seat is None
    assert facts.hand_number == first.get("hand_number")
    if parsed.status == "finished":
        old = WsGameOver(scores=first.get("scores"), winner=first.get("winner")).model_dump_json()
        assert game_over(facts) == old
        old_public = WsGameOver(scores=parsed.public.get("scores"),
                                winner=parsed.public.get("winner")).model_dump_json()
        assert game_over(facts) == old_public
    # The bots' talk decides the same from the facts as it did from each bot's own view.
    facts_view = {"status": parsed.status, "hand_number": facts.hand_number,
                  "last_play": None if facts.last_play_seat is None else {
                      "seat": facts.last_play_seat, "scopa": facts.last_play_scopa,
                      "auto": facts.last_play_auto}}
    for index, (_, view) in enumerate(parsed.views):
        for revision in range(8):
            assert bot_phrase(facts_view, index, "t", revision) == bot_phrase(view, index, "t", revision)


async def _move(tables, table_id: str, views, rng: random.Random) -> None:
    """A random legal move, an acknowledgement, or (now and then) a fired deadline."""
    live = await tables.current(table_id)
    deadlines = tables._engine(live.game_type).deadlines(live.state)
    if deadlines and rng.random() < 0.15:
        fired, _ = await tables.fire_deadline(table_id, deadlines[0].token, deadlines[0].kind)
        assert fired
        return
    for seat, view in views:
        if view.get("status") == "hand_end" and view["you"] not in view.get("acknowledged", []):
            await tables.act(table_id, seat, json.dumps({"action": "ack"}))
            return
        if view.get("your_turn"):
            if "legal" in view:
                # Half the time the greediest capture: sweeps (scope) come often then.
                plays = [(play["card"], capture) for play in view["legal"] for capture in play["captures"]]
                card, capture = (max(plays, key=lambda p: len(p[1])) if rng.random() < 0.5
                                 else rng.choice(plays))
                action = {"action": "play", "card": card, "capture": capture}
            else:  # the dummy game
                action = {"action": "add", "n": rng.randint(1, 3)}
            await tables.act(table_id, seat, json.dumps(action))
            return
    assert deadlines, "nobody may move and nothing is due"
    fired, _ = await tables.fire_deadline(table_id, deadlines[0].token, deadlines[0].kind)
    assert fired


# Every engine and option set in memory; one on Postgres + Redis (the rest is the same code).
@pytest.mark.parametrize("backend_spec, game_type, options, seed", [
    ("memory", "scopone_scientifico", {"target_score": 11}, 1),
    ("real", "scopone_scientifico", {"target_score": 11}, 1),
    ("memory", "scopone_scientifico", {"target_score": 16, "napola": True, "asso_pigliatutto": True}, 2),
    ("memory", "scopone_scientifico", {"target_score": 4, "player_entropy": True}, 3),
    ("memory", "dummy", {"target": 12}, 4),  # an engine field the contract does not name: "totals"
], indirect=["backend_spec"])
async def test_forwarded_states_are_byte_identical_to_the_models(tables, backend, game_type, options, seed):
    rng = random.Random(seed)
    wanted = {"playing", "finished", "auto"}
    if options.get("target_score", 0) >= 11:  # more than one hand, unless a deal ends it in one
        wanted |= {"hand_end", "scopa"}
    if options.get("player_entropy"):
        wanted.add("seeding")
    seen: set[str] = set()
    for _ in range(MAX_MATCHES):  # the deal is the table's: play on until every case was met
        compared, shown = await _match(tables, game_type, options, rng)
        assert compared > (10 if game_type == "dummy" else 40)
        seen |= shown
        if wanted <= seen:
            break
    assert wanted <= seen


def test_the_cut_follows_the_models_order() -> None:
    """game.view_parts orders a view as the contract's models dump it: the game cannot import
    the gateway's models, so this holds the two together."""
    named = list(GameView.model_fields)
    assert named == [*BEFORE_PLAYERS, "players", *AFTER_PLAYERS, *GATEWAY_FIELDS]
    public = list(PublicGameView.model_fields)
    assert public == [name for name in named if name not in ("you", "hand", "your_turn", "legal", "join_code")]
    assert list(Player.model_fields) == [*PLAYER_FIELDS, *PLAYER_GATEWAY_FIELDS]


@pytest.mark.parametrize("options", [
    {"target": 3},
    {"words": ["\x00view-cut\x00", "},{", '","']},  # the cut's own marker, as an engine's value
])
def test_a_view_out_of_the_contracts_order_is_cut_the_same(options) -> None:
    """Any engine's view: fields out of order, fields the contract does not name (in the view and
    in its players items), fields the gateway owns (its values win), the cut's marker in a value."""
    view = {"totals": [1, 2], "options": options, "status": "playing", "you": 1, "hand": ["01D"],
            "players": [{"is_you": i == 1, "team": "AB"[i % 2], "seat": i, "extra": {"n": i},
                         "name": "the engine's", "connected": False} for i in range(4)],
            "legal": [{"card": "01D", "captures": [[]]}], "join_code": "ENGINE", "spectators": 99,
            "revision": 3, "id": "t", "game_type": "dummy", "seed_commitment": "0" * 64, "last": None}
    public = {key: value for key, value in view.items() if key not in ("you", "hand", "legal")}
    public["players"] = [{**player, "is_you": False} for player in view["players"]]
    for game in _seatings("t", "dummy"):
        for connected in (set(), {1, 3}):
            assert Seating(game).state(cut(view), connected, 2) == _old_state(view, game, connected, 2)
            assert Seating(game).public_state(cut(public, public=True), connected, 0) == _old_public(
                public, game, connected, 0)
    assert json.loads(cut(view).text)["totals"] == [1, 2]  # the cut text is the view, reordered
    ordered = {"status": "playing", "options": options,  # the contract's fields only, in order
               "players": [{"seat": i, "team": "AB"[i % 2], "is_you": i == 1} for i in range(4)],
               "you": 1, "id": "t", "game_type": "dummy", "seed_commitment": "0" * 64, "revision": 3}
    for game in _seatings("t", "dummy"):
        assert Seating(game).state(cut(ordered), {0}, 1) == _old_state(ordered, game, {0}, 1)


async def test_a_replica_older_than_parts_is_cut_by_the_gateways_client(tables) -> None:
    """During a rolling upgrade a replica that ignores `parts` sends JSON views: the client cuts
    them, so the gateway's feed forwards the same bytes."""
    created = await tables.create_table("", "scopone_scientifico", "{}", SEATS)
    stream = tables.watch_table(created.table_id, public=True)
    cut_stream = tables.watch_table(created.table_id, public=True, parts=True)
    async with contextlib.aclosing(stream), contextlib.aclosing(cut_stream):
        old = _through_the_wire(_table_views(await anext(stream)), parts=True)
        new = _through_the_wire(_table_views(await anext(cut_stream)), parts=True)
    assert (old.parts, old.public_parts, old.facts) == (new.parts, new.public_parts, new.facts)
    assert old.parts and old.public_parts is not None


async def test_a_watch_of_one_seat_cut_carries_that_seats_view_alone(tables) -> None:
    created = await tables.create_table("", "scopone_scientifico", "{}", SEATS)
    every = tables.watch_table(created.table_id, parts=True)
    one = tables.watch_table(created.table_id, parts=True, seat="seat:2")
    async with contextlib.aclosing(every), contextlib.aclosing(one):
        all_seats, seat_2 = await anext(every), await anext(one)
    assert seat_2.parts == (all_seats.parts[2],) and seat_2.facts == all_seats.facts
