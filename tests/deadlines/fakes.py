"""A fake game service for the deadline tests: FireDeadline only, served over a real socket.

It records every call with the wall-clock time it arrived, and can be told to answer a token
as stale, to fail it a number of times, to hang its first call, or to know no such table.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import grpc

from services.rpc.errors import Reason, ServiceError
from services.rpc.server import ErrorInterceptor
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.processes import free_port


def due_token(due_ms: int, name: str = "t") -> str:
    """A token that carries its due time, so lateness can be read off the calls."""
    return f"{name}@{due_ms}"


@dataclass(frozen=True)
class Call:
    table_id: str
    kind: str
    token: str
    at_ms: float
    answer: str  # "fired", "stale", "gone", "refused", "failed", "hung"

    @property
    def due_ms(self) -> int:
        return int(self.token.rpartition("@")[2])

    @property
    def lateness_ms(self) -> float:
        return self.at_ms - self.due_ms


@dataclass(eq=False)
class FakeGame(game_pb2_grpc.GameServiceServicer):
    stale_tokens: set[str] = field(default_factory=set)
    gone_tables: set[str] = field(default_factory=set)
    failures: dict[str, int] = field(default_factory=dict)  # token -> failures still to give
    hang_first: set[str] = field(default_factory=set)       # tokens whose first call hangs
    refused: set[str] = field(default_factory=set)          # tokens answered INVALID_ARGUMENT
    busy: dict[str, int] = field(default_factory=dict)      # token -> CONCURRENT_MOVEs to give
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._changed = asyncio.Condition()

    async def FireDeadline(self, request, context):
        token = request.token
        if request.table_id in self.gone_tables:
            answer = "gone"
        elif token in self.refused:
            answer = "refused"
        elif token in self.hang_first:
            answer = "hung"
            self.hang_first.discard(token)
        elif self.failures.get(token, 0) > 0:
            answer = "failed"
            self.failures[token] -= 1
        elif self.busy.get(token, 0) > 0:
            answer = "busy"
            self.busy[token] -= 1
        else:
            answer = "stale" if token in self.stale_tokens else "fired"
        await self._record(Call(request.table_id, request.kind, token, time.time() * 1000, answer))
        if answer == "gone":
            raise ServiceError(Reason.TABLE_NOT_FOUND, "Table not found", table_id=request.table_id)
        if answer == "refused":
            raise ServiceError(Reason.INVALID_ARGUMENT, "table_id must be a lowercase uuid",
                               field="table_id")
        if answer == "busy":  # the table kept changing under the fire: worth another go
            raise ServiceError(Reason.CONCURRENT_MOVE, "The table keeps changing: try again",
                               table_id=request.table_id, revision=7)
        if answer == "hung":
            await asyncio.Event().wait()  # until the caller goes away
        if answer == "failed":
            await context.abort(grpc.StatusCode.INTERNAL, "the game service had a bad moment")
        return game_pb2.FireDeadlineResponse(fired=answer == "fired", revision=1)

    async def _record(self, call: Call) -> None:
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def calls_of(self, token: str) -> list[Call]:
        return [call for call in self.calls if call.token == token]

    async def wait_for(self, token: str, count: int = 1, timeout: float = 5.0) -> list[Call]:
        """The first ``count`` calls with this token, waiting for them to arrive."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self.calls_of(token)) >= count), timeout)
        return self.calls_of(token)[:count]

    async def wait_for_all(self, tokens, timeout: float = 5.0) -> dict[str, Call]:
        """The first call of each token."""
        wanted = set(tokens)
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(
                lambda: wanted <= {call.token for call in self.calls}), timeout)
        first: dict[str, Call] = {}
        for call in self.calls:
            first.setdefault(call.token, call)
        return {token: first[token] for token in wanted}


class FakeGameServer:
    """Serves a FakeGame on 127.0.0.1; can be stopped and started again on the same port."""

    def __init__(self, game: FakeGame | None = None):
        self.game = game or FakeGame()
        self.address = f"127.0.0.1:{free_port()}"
        self._server: grpc.aio.Server | None = None

    async def start(self) -> None:
        server = grpc.aio.server(interceptors=[ErrorInterceptor()])
        game_pb2_grpc.add_GameServiceServicer_to_server(self.game, server)
        if server.add_insecure_port(self.address) == 0:
            raise OSError(f"cannot listen on {self.address}")
        await server.start()
        self._server = server

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(0)
            self._server = None
