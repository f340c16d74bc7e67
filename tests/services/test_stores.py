"""Opening a store at start: tried again while the server does not answer, refused at once."""

from __future__ import annotations

import asyncpg
import pytest

from services.stores import StoreUnreachable, when_reachable
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

    with pytest.raises(StoreUnreachable, match="did not answer within 1 s: .*Connect call failed"):
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
