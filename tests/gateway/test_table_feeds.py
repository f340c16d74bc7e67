"""gateway.table_feed: one subscription per table per process, each socket its seat's views, in
order; a socket that stops reading is closed, never holding up the others; names read once."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from gateway.closes import GAME_GONE, NOT_SEATED, TOO_SLOW
from gateway.contract.socket import Feature
from gateway.outbox import OUTBOX_SIZE, Outbox
from gateway.table_feed import TableFeeds
from lobby.models import Game, Seat
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually
from tests.gateway.live_fakes import NAMES, FakeGame, FakeLobby, lobby_game, seat_view, table_views


class Socket:
    """An outbox and what was closed; ``read()`` takes the next message."""

    def __init__(self) -> None:
        self.closed: tuple[int, str] | None = None
        self.outbox = Outbox(lambda code, reason: setattr(self, "closed", (code, reason)))

    async def read(self) -> dict:
        return json.loads(await asyncio.wait_for(self.outbox.next(), 2))


@pytest.fixture
async def feeds():
    game, lobby = FakeGame(), FakeLobby()
    feeds = TableFeeds(game, lobby)
    feeds.fake_game, feeds.fake_lobby = game, lobby  # type: ignore[attr-defined]
    yield feeds
    await feeds.aclose()


async def test_one_subscription_per_table_shared_by_every_socket_of_the_process(feeds):
    game = feeds.fake_game
    sockets = [Socket() for _ in range(4)]
    joined = [feeds.join(lobby_game("t1"), "seat:0", "alice", sockets[0].outbox),
              feeds.join(lobby_game("t1"), "seat:0", "alice", sockets[1].outbox),
              feeds.join(lobby_game("t1"), "seat:2", "carol", sockets[2].outbox),
              feeds.join(lobby_game("t2"), "seat:1", "bob", sockets[3].outbox)]
    await eventually(lambda: game.open["t1"] == 1 and game.open["t2"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(1))
    states = [(await socket.read())["game"] for socket in sockets[:3]]
    assert [s["you"] for s in states] == [0, 0, 2]
    assert all([p["name"] for p in s["players"]] == list(NAMES) for s in states)
    assert game.opened == Counter({"t1": 1, "t2": 1}) and len(feeds) == 2
    for subscriber in joined[:2]:
        feeds.leave(subscriber)
    assert game.open["t1"] == 1  # carol is still there
    feeds.leave(joined[2])
    await eventually(lambda: game.open["t1"] == 0, interval=0.01, what="the last socket left, the stream stayed open")
    assert len(feeds) == 1 and game.open["t2"] == 1


async def test_a_socket_that_stops_reading_is_closed_and_the_others_get_every_state(feeds):
    game = feeds.fake_game
    reader, stuck = Socket(), Socket()
    feeds.join(lobby_game("t1"), "seat:0", "alice", reader.outbox)
    feeds.join(lobby_game("t1"), "seat:1", "bob", stuck.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    seen = []
    for revision in range(1, OUTBOX_SIZE + 6):
        game.push("t1", table_views(revision))
        seen.append((await reader.read())["game"]["revision"])
    assert seen == list(range(1, OUTBOX_SIZE + 6))  # each state, in order
    assert stuck.closed == TOO_SLOW == (1013, "Too slow")
    assert len(stuck.outbox) == 0  # nothing more is kept for it


async def test_a_socket_joining_a_running_table_gets_the_newest_state_then_the_next(feeds):
    game = feeds.fake_game
    first, late = Socket(), Socket()
    feeds.join(lobby_game("t1"), "seat:0", "alice", first.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    for revision in (1, 2):
        game.push("t1", table_views(revision))
        await first.read()
    feeds.join(lobby_game("t1"), "seat:3", "dave", late.outbox)
    state = (await late.read())["game"]
    assert (state["revision"], state["you"]) == (2, 3)
    game.push("t1", table_views(3, "finished"))
    assert (await late.read())["game"]["revision"] == 3
    assert await late.read() == {"type": "game_over", "scores": {"A": 11, "B": 3}, "winner": "A"}
    assert game.opened["t1"] == 1


async def test_names_are_read_once_and_again_only_after_the_seating_changed(feeds):
    game, lobby = feeds.fake_game, feeds.fake_lobby
    socket = Socket()
    feeds.join(lobby_game("t1"), "seat:0", "alice", socket.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    for revision in (1, 2, 3):
        game.push("t1", table_views(revision))
        await socket.read()
    assert lobby.reads == 0  # the seating the socket opened with
    lobby.games["t1"] = lobby_game("t1", names=("alice", "deleted player", "carol", "dave"))
    feeds.names_changed(["t1"])
    game.push("t1", table_views(4))
    state = (await socket.read())["game"]
    assert [p["name"] for p in state["players"]] == ["alice", "deleted player", "carol", "dave"]
    game.push("t1", table_views(5))
    await socket.read()
    assert lobby.reads == 1


async def test_a_new_subscription_after_a_restart_sends_only_what_is_new(feeds):
    game = feeds.fake_game
    socket = Socket()
    feeds.join(lobby_game("t1"), "seat:0", "alice", socket.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(1))
    await socket.read()
    game.push("t1", ServiceError(Reason.UNAVAILABLE, "UNAVAILABLE: the game service restarts"))
    await eventually(lambda: game.opened["t1"] == 2 and game.open["t1"] == 1, interval=0.01, what="never resubscribed")
    game.push("t1", table_views(1))  # a new stream starts with the current views
    game.push("t1", table_views(2))
    assert (await socket.read())["game"]["revision"] == 2


async def test_the_answer_to_state_never_takes_a_socket_back(feeds):
    game = feeds.fake_game
    socket = Socket()
    subscriber = feeds.join(lobby_game("t1"), "seat:0", "alice", socket.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(2))
    await socket.read()
    subscriber.answer_state(seat_view(0, 1))  # read before the feed's 2
    assert (await socket.read())["game"]["revision"] == 2
    subscriber.answer_state(seat_view(0, 3))
    assert (await socket.read())["game"]["revision"] == 3
    game.push("t1", table_views(3))  # the feed's 3 is not sent twice
    game.push("t1", table_views(4))
    assert (await socket.read())["game"]["revision"] == 4


async def test_the_waiting_room_is_one_lobby_watch_and_an_expired_game_closes_its_sockets(feeds):
    lobby = feeds.fake_lobby
    waiting = lobby_game("t1", started=False, names=NAMES[:2])
    waiting = Game(**{**waiting.__dict__, "seats": waiting.seats[:2]})
    alice, bob = Socket(), Socket()
    feeds.join(waiting, "seat:0", "alice", alice.outbox)
    feeds.join(waiting, "seat:1", "bob", bob.outbox)
    for socket, me in ((alice, 0), (bob, 1)):
        lobby_message = await socket.read()
        assert lobby_message["type"] == "lobby" and lobby_message["game"]["seats_open"] == 2
        assert [p["is_you"] for p in lobby_message["game"]["players"]] == [me == 0, me == 1]
    lobby.watching.put_nowait(waiting)  # the watch's first answer: seen already, not repeated
    lobby.watching.put_nowait(ServiceError(Reason.GAME_NOT_FOUND, "Game not found"))
    await eventually(lambda: alice.closed is not None and bob.closed is not None, interval=0.01, what="never closed")
    assert alice.closed == bob.closed == GAME_GONE == (1000, "Game not found")
    assert lobby.watches == 1
    assert len(alice.outbox) == len(bob.outbox) == 0


def waiting_game(*seats: tuple[int, str], started: bool = False) -> Game:
    """Game t1 with these (seat, member) pairs; names are the member ids."""
    return Game(id="t1", game_type="scopone_scientifico", join_code="K7QX2M", options_json="{}",
                seats_total=4, created_at_ms=0, started=started,
                seats=tuple(Seat(index, member, member) for index, member in seats))


async def test_a_socket_follows_its_member_to_another_seat_and_never_gets_the_old_seats_views(feeds):
    lobby, game = feeds.fake_lobby, feeds.fake_game
    first = waiting_game((0, "alice"), (1, "bob"))
    alice, bob = Socket(), Socket()
    feeds.join(first, "seat:0", "alice", alice.outbox)
    joined = feeds.join(first, "seat:1", "bob", bob.outbox)
    assert (await bob.read())["game"]["players"][1]["is_you"]
    lobby.watching.put_nowait(waiting_game((0, "alice"), (3, "bob")))  # bob: "Sit here" at seat 3
    moved = await bob.read()
    assert [p["seat"] for p in moved["game"]["players"] if p["is_you"]] == [3]
    assert joined.seat == "seat:3"
    assert await feeds.presence.seats("t1") == {0, 3}  # bob is online where he sits now
    # carol takes the seat bob left, dave the last one: the game starts.
    lobby.watching.put_nowait(waiting_game((0, "alice"), (1, "carol"), (2, "dave"), (3, "bob"), started=True))
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="the table was not followed")
    game.push("t1", table_views(1))
    state = await bob.read()
    while state["type"] != "state":
        state = await bob.read()
    assert state["game"]["you"] == 3
    assert [p["seat"] for p in state["game"]["players"] if p["is_you"]] == [3]
    assert len(bob.outbox) == 0  # seat 1's view was never queued for him


async def test_a_socket_whose_member_left_the_waiting_room_is_closed(feeds):
    lobby = feeds.fake_lobby
    first = waiting_game((0, "alice"), (1, "bob"))
    alice, bob = Socket(), Socket()
    feeds.join(first, "seat:0", "alice", alice.outbox)
    feeds.join(first, "seat:1", "bob", bob.outbox)
    lobby.watching.put_nowait(waiting_game((0, "alice")))  # bob pressed Leave
    await eventually(lambda: bob.closed is not None, interval=0.01, what="the leaver's socket stayed open")
    assert bob.closed == NOT_SEATED == (1000, "Not seated at this game")
    assert alice.closed is None
    assert await feeds.presence.seats("t1") == {0}


async def test_a_socket_that_read_its_seat_before_the_start_takes_the_seat_the_feed_knows(feeds):
    game = feeds.fake_game
    started = waiting_game((0, "alice"), (1, "carol"), (2, "dave"), (3, "bob"), started=True)
    alice, bob = Socket(), Socket()
    feeds.join(started, "seat:0", "alice", alice.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(1))
    await alice.read()
    # bob's socket read the lobby when he still sat at seat 1; he moved, and the game started.
    stale = waiting_game((0, "alice"), (1, "bob"))
    joined = feeds.join(stale, "seat:1", "bob", bob.outbox)
    assert joined.seat == "seat:3"
    assert (await bob.read())["game"]["you"] == 3
    # a member who is not seated at the started game gets nothing at all
    erin = Socket()
    feeds.join(stale, "seat:1", "erin", erin.outbox)
    assert erin.closed == NOT_SEATED and len(erin.outbox) == 0


async def test_presence_goes_only_to_sockets_that_asked_for_it(feeds):
    game = feeds.fake_game
    started = lobby_game("t1")
    asked, plain = Socket(), Socket()
    feeds.join(started, "seat:0", "alice", asked.outbox, frozenset({Feature.PRESENCE}))
    feeds.join(started, "seat:2", "carol", plain.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(1))
    assert (await asked.read())["type"] == (await plain.read())["type"] == "state"
    feeds.join(started, "seat:1", "bob", Socket().outbox)  # bob comes online
    assert await asked.read() == {"type": "presence", "connected": [0, 1, 2]}
    assert len(plain.outbox) == 0


async def test_a_reader_waits_while_its_outbox_is_over_half_full():
    outbox = Outbox(lambda code, reason: None, size=8)
    for n in range(4):
        outbox.put(f"m{n}")
    await asyncio.wait_for(outbox.room(), 1)  # half full: the reader goes on
    outbox.put("m4")
    waiting = asyncio.create_task(outbox.room())
    await asyncio.sleep(0)
    assert not waiting.done()
    assert await outbox.next() == "m0"  # the writer sent one: back to half
    await asyncio.wait_for(waiting, 1)
    outbox.put("m5")
    closing = asyncio.create_task(outbox.room())
    outbox.close(1000, "bye")  # a closed outbox holds nobody up
    await asyncio.wait_for(closing, 1)


async def test_the_public_view_is_asked_for_only_while_the_feed_has_spectators(feeds):
    game = feeds.fake_game
    player, spectator = Socket(), Socket()
    feeds.join(lobby_game("t1"), "seat:0", "alice", player.outbox)
    await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
    game.push("t1", table_views(1))
    assert (await player.read())["game"]["revision"] == 1
    assert game.public["t1"] == [False]
    # The first spectator: the feed follows the table again, with the public view.
    watching = feeds.watch(lobby_game("t1"), "eve", spectator.outbox)
    await eventually(lambda: game.public["t1"] == [False, True] and game.open["t1"] == 1, interval=0.01, what="not followed again")
    game.push("t1", table_views(1))  # the new stream starts where the table is
    first = await spectator.read()
    assert first["type"] == "state" and first["game"]["revision"] == 1 and "you" not in first["game"]
    assert not any(p["is_you"] for p in first["game"]["players"])
    game.push("t1", table_views(2))
    assert (await player.read())["game"]["revision"] == 2  # the player missed nothing, got nothing twice
    assert (await spectator.read())["game"]["revision"] == 2
    # The last spectator leaves while the player stays: no public view any more.
    feeds.leave(watching)
    await eventually(lambda: game.public["t1"] == [False, True, False] and game.open["t1"] == 1,
                interval=0.01, what="still followed with the public view")
    game.push("t1", table_views(3))
    assert (await player.read())["game"]["revision"] == 3
    # A spectator again, with no move since: it gets the current public view at once from the
    # new stream's first message.
    again = Socket()
    feeds.watch(lobby_game("t1"), "eve", again.outbox)
    await eventually(lambda: game.public["t1"][-1] is True and game.open["t1"] == 1, interval=0.01, what="not followed again")
    game.push("t1", table_views(3))
    assert (await again.read())["game"]["revision"] == 3


async def test_a_spectator_of_a_waiting_game_gets_the_public_lobby(feeds):
    spectator = Socket()
    feeds.watch(lobby_game("t1", started=False), "eve", spectator.outbox)
    lobby = await spectator.read()
    assert lobby["type"] == "lobby" and "join_code" not in lobby["game"]
    assert not any(p["is_you"] for p in lobby["game"]["players"])


class SlowFirstRead:
    """Presence whose reads answer what was marked when each read began; the first read is held
    until released, so a later read can finish before it (two events' reads, out of order)."""

    def __init__(self) -> None:
        self.marked: set[int] = set()
        self.reads = 0
        self.release = asyncio.Event()

    async def mark(self, table_id: str, seat: int, present: bool) -> None:
        return None

    async def renew(self, marks) -> None:
        return None

    async def seats(self, table_id: str) -> set[int]:
        self.reads += 1
        seen = set(self.marked)
        if self.reads == 2:  # the first event's read (the feed's start made read 1)
            await self.release.wait()
        return seen


async def test_a_slow_presence_read_never_overwrites_a_newer_one():
    presence = SlowFirstRead()
    game, lobby = FakeGame(), FakeLobby()
    feeds = TableFeeds(game, lobby, presence=presence)  # type: ignore[arg-type]
    try:
        socket = Socket()
        feeds.join(lobby_game("t1"), "seat:0", "alice", socket.outbox, features=frozenset({Feature.PRESENCE}))
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no stream opened")
        game.push("t1", table_views(1))
        await socket.read()  # the state
        presence.marked = {1}  # bob sits down on another gateway: an event, a read (held)
        feeds.presence_changed("t1")
        await eventually(lambda: presence.reads == 2, interval=0.01, what="the first read did not start")
        presence.marked = {1, 2}  # carol too: another event, another read
        feeds.presence_changed("t1")
        await asyncio.sleep(0)
        presence.release.set()
        told = [(await socket.read())["connected"] for _ in range(2)]
        # The last word is the newest read: bob and carol (and alice, here) are connected.
        assert told[-1] == [0, 1, 2], told
    finally:
        await feeds.aclose()
