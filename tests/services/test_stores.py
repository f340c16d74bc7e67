"""Opening a store at start: tried again while the server does not answer, refused at once.
A store that stops answering later: UNAVAILABLE, naming the store."""

from __future__ import annotations

import asyncpg
import pytest
import redis.exceptions

from services.rpc.errors import Reason, ServiceError
from services.stores import (
    POSTGRES_DOWN,
    REDIS_DOWN,
    StoreUnreachable,
    unavailable_on,
    unavailable_when,
    when_reachable,
)
from testing.servers import ADMIN_DSN


async def test_a_store_that_answers_after_a_while_is_opened(caplog):
    tries = []

    async def open_store():
        tries.append(1)
        if len(tries) < 3:
            raise ConnectionRefusedError(111, "Connect call failed")
        return "open"

    assert await when_reachable("test: Postgres", open_store, wait_seconds=10) == "open"
    assert len(tries) == 3
    assert sum("does not answer yet" in r.getMessage() for r in caplog.records) == 2


async def test_a_store_that_never_answers_gives_up_with_the_reason():
    async def open_store():
        raise ConnectionRefusedError(111, "Connect call failed")

    with pytest.raises(StoreUnreachable, match=r"did not answer within 1 s: .*Connect call failed"):
        await when_reachable("test: Postgres", open_store, wait_seconds=1)


async def test_a_refusal_is_not_tried_again():
    tries = []
    missing = ADMIN_DSN.rsplit("/", 1)[0] + "/tavolo_no_such_database"

    async def open_store():
        tries.append(1)
        return await asyncpg.connect(missing)

    with pytest.raises(StoreUnreachable, match="refused the connection"):
        await when_reachable("test: Postgres", open_store, wait_seconds=30)
    assert len(tries) == 1


# -- store down -> UNAVAILABLE: the one mapping every store uses ------------------------------

@pytest.mark.parametrize("error", [
    redis.exceptions.ConnectionError("Connection refused"),
    redis.exceptions.TimeoutError("Timeout reading from socket"),
    redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"),
    ConnectionResetError(104, "Connection reset by peer"),
])
async def test_a_redis_that_does_not_answer_is_unavailable_naming_the_store(error, caplog):
    @unavailable_when(REDIS_DOWN, "test store")
    async def call():
        raise error

    with pytest.raises(ServiceError) as caught:
        await call()
    assert caught.value.reason is Reason.UNAVAILABLE
    assert caught.value.message == f"The test store is unavailable: {type(error).__name__}"
    assert any("test store did not answer" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("error", [
    TimeoutError(),
    ConnectionRefusedError(111, "Connect call failed"),
    asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
    asyncpg.InterfaceError("pool is closing"),
    asyncpg.CannotConnectNowError("the database system is starting up"),
    asyncpg.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.CrashShutdownError("terminating connection because of crash of another server process"),
    asyncpg.TooManyConnectionsError("sorry, too many clients already"),
])
def test_a_postgres_that_does_not_answer_is_unavailable(error):
    with pytest.raises(ServiceError) as caught, unavailable_on(POSTGRES_DOWN, "test database"):
        raise error
    assert caught.value.reason is Reason.UNAVAILABLE
    assert caught.value.message.startswith("The test database is unavailable")


@pytest.mark.parametrize(("errors", "error"), [
    (REDIS_DOWN, redis.exceptions.ResponseError("WRONGTYPE")),
    (POSTGRES_DOWN, asyncpg.UniqueViolationError("duplicate key value")),
    (POSTGRES_DOWN, ValueError("a bug")),
])
def test_a_refusal_or_a_bug_is_no_outage(errors, error):
    with pytest.raises(type(error)), unavailable_on(errors, "test store"):
        raise error
