"""Where the lobby keeps its games: join codes, seatings, each member's games, and their changes.

One interface, :class:`LobbyStore`, with a Redis implementation (several replicas share it) and
an in-memory one (a single process, used when REDIS_URL is unset). Every operation that reads
and then writes (create, join, touch, mark started, erase) is atomic: a Lua script in Redis, a
stretch of code without ``await`` in memory. That is what makes two members racing for the
last seat end with exactly one of them seated.

Everything of a game (its code, its seating, its members' indexes) lives for GAME_TTL_SECONDS
after it was last created, joined or read by id (``touch``: GetGame, GetSeating, FindSeat, the
calls made while a table is played), so a code stays unique among live games and frees itself
when its game is gone, and a seating outlives the play of its table.

Redis keys (``<prefix>`` is REDIS_KEY_PREFIX, "tavolo" in production):
- ``<prefix>:code:<CODE>``: the game id, set only if absent (SET NX) so two games never share one;
- ``<prefix>:lobby:<id>``: a hash: the game's fields, ``seat:<i>:member`` / ``seat:<i>:name``
  per taken seat (and ``seat:<i>:erased`` = 1 once its member was erased), ``taken`` (how
  many) and ``member:<member id>`` -> seat index, the reverse look-up that keeps joins
  idempotent;
- ``<prefix>:member:<member id>:games``: the set of game ids the member sits at, so that an
  erasure visits only those games and a member's games are listed without a scan;
- ``<prefix>:lobby:<id>:events``: a pub/sub channel, signalled by the same script that takes a
  seat, starts the game or erases a member, so a waiting room updates without polling.
"""

from __future__ import annotations

import contextlib
import enum
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import cast

import redis.asyncio as redis

from lobby.models import DELETED_PLAYER, Game, Seat
from services.signals import MemorySignalHub, RedisSignalHub, Signals
from services.stores import REDIS_DOWN, Keys, unavailable_when


class JoinOutcome(enum.Enum):
    SEATED = "seated"            # this call took a free seat
    ALREADY_SEATED = "already"   # the member sat there already: nothing changed
    FULL = "full"                # every seat is taken by others
    NOT_FOUND = "missing"        # no live game has this id


@dataclass(frozen=True)
class Joined:
    """What a join did and the game right after it (None when not found)."""

    outcome: JoinOutcome
    game: Game | None

    @property
    def took_last_seat(self) -> bool:
        return self.outcome is JoinOutcome.SEATED and self.game is not None and self.game.full


def refused_join(game: Game | None, member_id: str) -> Joined | None:
    """Why the member takes no seat at ``game``: gone, seated already, or full; None when a
    seat is free for them."""
    if game is None:
        return Joined(JoinOutcome.NOT_FOUND, None)
    if game.seat_of(member_id) is not None:
        return Joined(JoinOutcome.ALREADY_SEATED, game)
    if game.full:
        return Joined(JoinOutcome.FULL, game)
    return None


class LobbyStore(ABC):
    """The lobby's state. Implementations must keep each method atomic."""

    @abstractmethod
    async def create(self, game: Game) -> bool:
        """Store a new game and its code; False (nothing stored) when a live game has the code
        or the id."""

    @abstractmethod
    async def game_id_for_code(self, code: str) -> str | None:
        """The id of the live game with this (canonical) code."""

    @abstractmethod
    async def get(self, game_id: str) -> Game | None:
        """The live game with this id."""

    @abstractmethod
    async def touch(self, game_id: str) -> Game | None:
        """The live game with this id, its TTL (and its code's) restarted: a game in use lives on."""

    @abstractmethod
    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0) -> Joined:
        """Seat the member at the next free seat of the live game with this (canonical) code,
        unless already seated there or the game is full; a seat taken at ``at_ms`` (epoch ms,
        0: keep the game's time) is a change its subscribers hear of."""

    @abstractmethod
    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        """Record that the table exists (idempotent); the game after, None when it is gone.
        The first call is a change its subscribers hear of."""

    @abstractmethod
    async def member_games(self, member_id: str) -> list[Game]:
        """The live games the member sits at, in no particular order."""

    @abstractmethod
    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        """Signals of the game's changes (a seat taken, the start, an erasure), active once
        the context is entered."""

    @abstractmethod
    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        """Anonymize each seating of the member (a fresh id from ``new_member_id`` per game, the
        name "deleted player", marked erased); the ids of the games touched, sorted."""

    async def ping(self) -> None:
        """Raise while the store does not answer (the health probe)."""

    async def close(self) -> None:
        """Release connections."""


# -- in memory ------------------------------------------------------------------------------


class MemoryLobbyStore(LobbyStore):
    """A single process's store. No method awaits between its read and its write, so each is
    atomic under asyncio; expired entries are dropped when next looked at."""

    def __init__(self, ttl_seconds: int, clock: Callable[[], float] = time.monotonic):
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._games: dict[str, tuple[Game, float]] = {}
        self._codes: dict[str, tuple[str, float]] = {}
        self._member_games: dict[str, set[str]] = {}
        self._next_sweep = clock() + 60
        self._hub = MemorySignalHub()

    async def create(self, game: Game) -> bool:
        self._sweep()
        if self._live_code(game.join_code) is not None or self._live_game(game.id) is not None:
            return False
        self._store(game)
        for seat in game.seats:
            self._member_games.setdefault(seat.member_id, set()).add(game.id)
        return True

    async def game_id_for_code(self, code: str) -> str | None:
        return self._live_code(code)

    async def get(self, game_id: str) -> Game | None:
        return self._live_game(game_id)

    async def touch(self, game_id: str) -> Game | None:
        game = self._live_game(game_id)
        if game is not None:
            self._store(game)
        return game

    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0) -> Joined:
        game_id = self._live_code(code)
        game = self._live_game(game_id) if game_id is not None else None
        if (refusal := refused_join(game, member_id)) is not None:
            return refusal
        assert game is not None  # refused_join answers NOT_FOUND for a missing game
        seat = Seat(len(game.seats), member_id, display_name)
        game = replace(game, seats=(*game.seats, seat),
                       updated_at_ms=at_ms or game.updated_at_ms)
        self._store(game)
        self._member_games.setdefault(member_id, set()).add(game.id)
        self._hub.notify(game.id)
        return Joined(JoinOutcome.SEATED, game)

    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        game = self._live_game(game_id)
        if game is None:
            return None
        if not game.started:
            game = replace(game, started=True, updated_at_ms=at_ms or game.updated_at_ms)
            self._games[game_id] = (game, self._games[game_id][1])
            self._hub.notify(game.id)
        return game

    async def member_games(self, member_id: str) -> list[Game]:
        games = (self._live_game(game_id) for game_id in self._member_games.get(member_id, ()))
        return [game for game in games if game is not None and game.seat_of(member_id)]

    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(game_id)

    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        touched = []
        for game_id in self._member_games.pop(member_id, set()):
            game = self._live_game(game_id)
            seat = game.seat_of(member_id) if game is not None else None
            if game is None or seat is None:
                continue
            erased = Seat(seat.index, new_member_id(), DELETED_PLAYER, erased=True)
            seats = tuple(erased if s.index == seat.index else s for s in game.seats)
            self._games[game_id] = (replace(game, seats=seats), self._games[game_id][1])
            self._hub.notify(game_id)
            touched.append(game_id)
        return sorted(touched)

    def _sweep(self) -> None:
        """Forget expired games, codes and index entries, at most once a minute."""
        now = self.clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + 60
        self._games = {k: v for k, v in self._games.items() if v[1] > now}
        self._codes = {k: v for k, v in self._codes.items() if v[1] > now}
        for member_id in list(self._member_games):
            self._member_games[member_id] &= self._games.keys()
            if not self._member_games[member_id]:
                del self._member_games[member_id]

    def _store(self, game: Game) -> None:
        """Write the game and (re)start the TTL of it and its code."""
        expires = self.clock() + self.ttl_seconds
        self._games[game.id] = (game, expires)
        self._codes[game.join_code] = (game.id, expires)

    def _live_game(self, game_id: str) -> Game | None:
        entry = self._games.get(game_id)
        if entry is None:
            return None
        if entry[1] <= self.clock():
            del self._games[game_id]
            return None
        return entry[0]

    def _live_code(self, code: str) -> str | None:
        entry = self._codes.get(code)
        if entry is None:
            return None
        if entry[1] <= self.clock():
            del self._codes[code]
            return None
        return entry[0]


# -- Redis ----------------------------------------------------------------------------------

# KEYS: code, lobby hash, then one member index per seated member. ARGV: game id, ttl, then
# the hash's field/value pairs. Refuses (0) when the id or the code is taken; else writes
# everything.
_CREATE = """
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then
  return 0
end
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('EXPIRE', KEYS[2], ARGV[2])
for i = 3, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[1])
  redis.call('EXPIRE', KEYS[i], ARGV[2])
end
return 1
"""

# Restarts the TTL of a game, of its code and of the index of every member seated at it. A
# member's index must outlive each game in it, or an erasure would miss that game; as every
# refresh sets now + TTL, the index lives as long as the member's longest-lived game. The key
# names (``<prefix>:code:<CODE>``, ``<prefix>:member:<id>:games``, as Keys builds them) are
# made here from the game's hash, so these scripts assume one Redis server, not a Cluster.
_REFRESH = """
local function refresh(game_key, prefix, ttl)
  redis.call('EXPIRE', game_key, ttl)
  redis.call('EXPIRE', prefix .. ':code:' .. redis.call('HGET', game_key, 'join_code'), ttl)
  for i = 0, tonumber(redis.call('HGET', game_key, 'taken')) - 1 do
    local member = redis.call('HGET', game_key, 'seat:' .. i .. ':member')
    redis.call('EXPIRE', prefix .. ':member:' .. member .. ':games', ttl)
  end
end
"""

# KEYS: lobby hash, the joining member's index. ARGV: game id, member id, display name, ttl,
# key prefix, time (epoch ms, "0" keeps the game's), events channel. Returns {outcome, hash as
# a flat list}. A seat is taken only while taken < seats_total; taking one refreshes the
# game's TTL (see _REFRESH) and signals the game's subscribers.
_JOIN = _REFRESH + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'missing'}
end
local outcome = 'seated'
if redis.call('HEXISTS', KEYS[1], 'member:' .. ARGV[2]) == 1 then
  outcome = 'already'
else
  local taken = tonumber(redis.call('HGET', KEYS[1], 'taken'))
  local total = tonumber(redis.call('HGET', KEYS[1], 'seats_total'))
  if taken >= total then
    outcome = 'full'
  else
    redis.call('HSET', KEYS[1],
      'seat:' .. taken .. ':member', ARGV[2],
      'seat:' .. taken .. ':name', ARGV[3],
      'member:' .. ARGV[2], taken,
      'taken', taken + 1)
    if ARGV[6] ~= '0' then
      redis.call('HSET', KEYS[1], 'updated_at_ms', ARGV[6])
    end
    redis.call('SADD', KEYS[2], ARGV[1])
    refresh(KEYS[1], ARGV[5], ARGV[4])
    redis.call('PUBLISH', ARGV[7], 'seated')
  end
end
return {outcome, redis.call('HGETALL', KEYS[1])}
"""

# KEYS: lobby hash. ARGV: ttl, key prefix. The game (empty when gone), its TTL restarted.
_TOUCH = _REFRESH + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
refresh(KEYS[1], ARGV[2], ARGV[1])
return redis.call('HGETALL', KEYS[1])
"""

# KEYS: lobby hash. ARGV: time (epoch ms, "0" keeps the game's), events channel. Sets
# started = 1 on a live game only (HSET on a missing key would create a key without a TTL);
# the first time, signals the game's subscribers. Returns the hash, empty when the game is gone.
_MARK_STARTED = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
if redis.call('HGET', KEYS[1], 'started') ~= '1' then
  redis.call('HSET', KEYS[1], 'started', '1')
  if ARGV[1] ~= '0' then
    redis.call('HSET', KEYS[1], 'updated_at_ms', ARGV[1])
  end
  redis.call('PUBLISH', ARGV[2], 'started')
end
return redis.call('HGETALL', KEYS[1])
"""

# KEYS: lobby hash, member index. ARGV: game id, member id, fresh member id, the erased name,
# events channel. Drops the game from the member's index; anonymizes the seat (and marks it
# erased, so stats never rates it) if the member still sits there, and signals the game's
# subscribers (the names they show changed).
_ERASE = """
redis.call('SREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local seat = redis.call('HGET', KEYS[1], 'member:' .. ARGV[2])
if not seat then
  return 0
end
redis.call('HDEL', KEYS[1], 'member:' .. ARGV[2])
redis.call('HSET', KEYS[1],
  'seat:' .. seat .. ':member', ARGV[3],
  'seat:' .. seat .. ':name', ARGV[4],
  'seat:' .. seat .. ':erased', '1',
  'member:' .. ARGV[3], seat)
redis.call('PUBLISH', ARGV[5], 'erased')
return 1
"""


_unavailable = unavailable_when(REDIS_DOWN, "lobby store")


class RedisLobbyStore(LobbyStore):
    """The shared store: every replica of the lobby sees the same games."""

    def __init__(self, client: redis.Redis, keys: Keys, ttl_seconds: int):
        self.client = client
        self.keys = keys
        self.ttl_seconds = ttl_seconds
        self._create = client.register_script(_CREATE)
        self._join = client.register_script(_JOIN)
        self._touch = client.register_script(_TOUCH)
        self._mark_started = client.register_script(_MARK_STARTED)
        self._erase = client.register_script(_ERASE)
        self._hub = RedisSignalHub(client, "lobby events")

    def _code_key(self, code: str) -> str:
        return self.keys("code", code)

    def _game_key(self, game_id: str) -> str:
        return self.keys("lobby", game_id)

    def _member_key(self, member_id: str) -> str:
        return self.keys("member", member_id, "games")

    def _channel(self, game_id: str) -> str:
        return self.keys("lobby", game_id, "events")

    @_unavailable
    async def create(self, game: Game) -> bool:
        keys = [self._code_key(game.join_code), self._game_key(game.id),
                *(self._member_key(seat.member_id) for seat in game.seats)]
        fields = [item for pair in _to_hash(game).items() for item in pair]
        created = await self._create(keys=keys, args=[game.id, self.ttl_seconds, *fields])
        return bool(created)

    @_unavailable
    async def game_id_for_code(self, code: str) -> str | None:
        return cast(str | None, await self.client.get(self._code_key(code)))

    @_unavailable
    async def get(self, game_id: str) -> Game | None:
        return _from_hash(cast(dict[str, str], await self.client.hgetall(self._game_key(game_id))))

    @_unavailable
    async def touch(self, game_id: str) -> Game | None:
        reply = await self._touch(keys=[self._game_key(game_id)],
                                  args=[self.ttl_seconds, self.keys.prefix])
        return _from_hash(_pairs(reply))

    @_unavailable
    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0) -> Joined:
        game_id = await self.game_id_for_code(code)
        if game_id is None:
            return Joined(JoinOutcome.NOT_FOUND, None)
        reply = await self._join(
            keys=[self._game_key(game_id), self._member_key(member_id)],
            args=[game_id, member_id, display_name, self.ttl_seconds, self.keys.prefix,
                  at_ms, self._channel(game_id)],
        )
        outcome = JoinOutcome(reply[0])
        game = _from_hash(_pairs(reply[1])) if len(reply) > 1 else None
        return Joined(outcome, game)

    @_unavailable
    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        reply = await self._mark_started(keys=[self._game_key(game_id)],
                                         args=[at_ms, self._channel(game_id)])
        return _from_hash(_pairs(reply))

    @_unavailable
    async def member_games(self, member_id: str) -> list[Game]:
        game_ids = cast(set[str], await self.client.smembers(self._member_key(member_id)))
        if not game_ids:
            return []
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hgetall(self._game_key(game_id))
            hashes = await pipe.execute()
        games = (_from_hash(fields) for fields in hashes)
        return [game for game in games if game is not None and game.seat_of(member_id)]

    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(self._channel(game_id))

    @_unavailable
    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        index = self._member_key(member_id)
        touched: set[str] = set()
        # Each script removes its game from the index, so the loop ends; it re-reads the index
        # in case the member joined another game meanwhile.
        while game_ids := cast(set[str], await self.client.smembers(index)):
            for game_id in game_ids:
                erased = await self._erase(
                    keys=[self._game_key(game_id), index],
                    args=[game_id, member_id, new_member_id(), DELETED_PLAYER,
                          self._channel(game_id)],
                )
                if erased:
                    touched.add(game_id)
        return sorted(touched)

    async def ping(self) -> None:
        await self.client.ping()

    async def close(self) -> None:
        await self._hub.close()
        await self.client.aclose()


def _to_hash(game: Game) -> dict[str, str | int]:
    fields: dict[str, str | int] = {
        "id": game.id,
        "game_type": game.game_type,
        "join_code": game.join_code,
        "options_json": game.options_json,
        "seats_total": game.seats_total,
        "created_at_ms": game.created_at_ms,
        "updated_at_ms": game.updated_at_ms,
        "started": int(game.started),
        "taken": len(game.seats),
    }
    for seat in game.seats:
        fields[f"seat:{seat.index}:member"] = seat.member_id
        fields[f"seat:{seat.index}:name"] = seat.display_name
        fields[f"member:{seat.member_id}"] = seat.index
        if seat.erased:
            fields[f"seat:{seat.index}:erased"] = 1
    return fields


def _pairs(flat: list[str]) -> dict[str, str]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _from_hash(fields: dict[str, str]) -> Game | None:
    if not fields:
        return None
    seats = tuple(
        Seat(index, fields[f"seat:{index}:member"], fields[f"seat:{index}:name"],
             erased=fields.get(f"seat:{index}:erased") == "1")
        for index in range(int(fields["taken"]))
    )
    return Game(
        id=fields["id"],
        game_type=fields["game_type"],
        join_code=fields["join_code"],
        options_json=fields["options_json"],
        seats_total=int(fields["seats_total"]),
        created_at_ms=int(fields["created_at_ms"]),
        seats=seats,
        started=fields["started"] == "1",
        updated_at_ms=int(fields.get("updated_at_ms", 0)),
    )
