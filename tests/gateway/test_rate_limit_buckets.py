"""The rate limits' token buckets, the same tests on the real Redis and in memory, and the limiter
over them: per session and per address, off, and going ahead when the store does not answer."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import redis.asyncio as redis

from gateway.rate_limits import (
    INVITATION_RATE,
    Kind,
    MemoryBuckets,
    Rate,
    RateLimits,
    RedisBuckets,
    kind_of,
    rate_limits,
)
from services.config import RateLimitSettings
from services.stores import Keys
from testing.processes import free_port
from testing.servers import REDIS_URL

FAST = Rate(per_second=20, burst=3)  # a token back every 50 ms


@pytest.fixture(params=["redis", "memory"])
async def store(request, redis_prefix):
    """(buckets, key maker): on the real Redis under the test's own prefix, or in memory."""
    if request.param == "memory":
        yield MemoryBuckets(), Keys("memory")
        return
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    yield RedisBuckets(client), Keys(redis_prefix)
    await client.aclose()


async def test_a_full_bucket_gives_its_burst_then_says_how_long_to_wait(store):
    buckets, keys = store
    bucket = [(keys.group("ratelimit", "write", "ip", "198.51.100.7"), FAST)]
    assert [await buckets.take(bucket) for _ in range(FAST.burst)] == [0, 0, 0]
    wait = await buckets.take(bucket)
    assert 0 < wait <= 0.051  # one token's interval, in whole milliseconds from Redis
    await asyncio.sleep(wait)
    assert await buckets.take(bucket) == 0  # refilled by then
    assert await buckets.take(bucket) > 0


async def test_a_refusal_takes_no_token_from_any_bucket(store):
    buckets, keys = store
    tight, roomy = (keys.group("ratelimit", "login", "session", "s"), Rate(0.01, 1)), \
        (keys.group("ratelimit", "login", "ip", "a"), Rate(0.01, 4))
    assert await buckets.take([tight, roomy]) == 0
    assert await buckets.take([tight, roomy]) > 1  # the session's bucket is empty for 100 s
    assert [await buckets.take([roomy]) for _ in range(3)] == [0, 0, 0]  # 4 - 1 taken: 3 left
    assert await buckets.take([roomy]) > 0


async def test_buckets_are_independent(store):
    buckets, keys = store
    one, other = (keys.group("ratelimit", "ws_message", "ip", "a"), FAST), \
        (keys.group("ratelimit", "ws_message", "ip", "b"), FAST)
    for _ in range(FAST.burst):
        await buckets.take([one])
    assert await buckets.take([one]) > 0
    assert await buckets.take([other]) == 0


async def test_redis_buckets_expire_when_full_again(redis_prefix, redis_client):
    buckets = RedisBuckets(redis_client)
    key = Keys(redis_prefix).group("ratelimit", "write", "session", "d")
    await buckets.take([(key, Rate(per_second=10, burst=5))])
    assert 0 < await redis_client.pttl(key) <= 100  # one token taken: full in 100 ms
    for _ in range(4):
        await buckets.take([(key, Rate(per_second=10, burst=5))])
    assert 400 < await redis_client.pttl(key) <= 500


async def test_memory_buckets_forget_full_buckets():
    now = [1000.0]
    buckets = MemoryBuckets(clock=lambda: now[0])
    await buckets.take([("a", Rate(1, 2)), ("b", Rate(1, 2))])
    assert len(buckets) == 2
    now[0] += MemoryBuckets.SWEEP_SECONDS  # both full long since
    await buckets.take([("c", Rate(1, 2))])
    assert len(buckets) == 1


@pytest.mark.parametrize(("method", "path", "kind"), [
    ("GET", "/auth/login", Kind.LOGIN),
    ("GET", "/auth/default/login", Kind.LOGIN),
    ("GET", "/auth/{provider}/callback", Kind.LOGIN),
    ("GET", "/auth/logout", None),
    ("POST", "/api/games", Kind.WRITE),
    ("DELETE", "/api/me", Kind.WRITE),
    ("PATCH", "/api/nowhere", Kind.WRITE),
    ("GET", "/api/games/open", None),
    ("POST", "/apis", None),
    ("POST", "/somewhere", None),
])
def test_what_each_limit_covers(method, path, kind):
    assert kind_of(method, path) is kind


SMALL = RateLimitSettings(login_per_minute=1, login_burst=2, per_ip_factor=3)


async def test_limits_per_session_and_per_address(store):
    buckets, keys = store
    limits = RateLimits(SMALL, buckets, keys)
    assert [await limits.refusal(Kind.LOGIN, "alice", "192.0.2.1") for _ in range(2)] == [None, None]
    assert 1 <= await limits.refusal(Kind.LOGIN, "alice", "192.0.2.1") <= 60  # the session's
    # Another session at the same address goes on, until the address's 3 x 2 are taken.
    assert [await limits.refusal(Kind.LOGIN, name, "192.0.2.1")
            for name in ("bob", "bob", "carol", "carol")] == [None, None, None, None]
    assert await limits.refusal(Kind.LOGIN, "dave", "192.0.2.1") is not None
    assert await limits.refusal(Kind.LOGIN, "dave", "192.0.2.2") is None
    assert await limits.refusal(Kind.LOGIN, None, "192.0.2.1") is not None  # no session: the address's
    assert await limits.refusal(Kind.WRITE, "alice", "192.0.2.1") is None  # a limit of its own
    assert await limits.refusal(Kind.LOGIN, None, None) is None  # nothing to count by


async def test_invitations_are_limited_per_member(store):
    """A member's invitations: INVITATION_RATE's burst, whatever session or address they come from,
    and one member's bucket is not another's."""
    buckets, keys = store
    limits = RateLimits(SMALL, buckets, keys)
    burst = INVITATION_RATE.burst
    assert [await limits.member_refusal(Kind.INVITATION, "alice") for _ in range(burst)] == [None] * burst
    wait = await limits.member_refusal(Kind.INVITATION, "alice")
    assert wait is not None and 1 <= wait <= 60 / 20 + 1  # one token back: 3 s
    assert await limits.member_refusal(Kind.INVITATION, "bob") is None
    assert await limits.refusal(Kind.WRITE, "alice", "192.0.2.1") is None  # writes count apart
    off = RateLimits(RateLimitSettings(enabled=False), buckets, keys)
    assert await off.member_refusal(Kind.INVITATION, "alice") is None


async def test_limits_that_are_off_refuse_nothing(store):
    buckets, keys = store
    limits = RateLimits(RateLimitSettings(enabled=False, login_burst=1), buckets, keys)
    assert [await limits.refusal(Kind.LOGIN, "alice", "192.0.2.1") for _ in range(5)] == [None] * 5


@contextlib.asynccontextmanager
async def silent_server():
    """A TCP server that accepts and never answers: a Redis that hangs."""
    held = []

    async def hold(reader, writer):
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in held:
            writer.close()


async def test_a_store_that_does_not_answer_lets_every_request_through():
    tight = RateLimitSettings(login_burst=1)
    closed = redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", decode_responses=True)
    async with silent_server() as port:
        hung = redis.Redis.from_url(f"redis://127.0.0.1:{port}/0", decode_responses=True)
        for client in (closed, hung):
            limits = rate_limits(tight, client)
            started = asyncio.get_running_loop().time()
            assert [await limits.refusal(Kind.LOGIN, "alice", "192.0.2.1") for _ in range(3)] == [None] * 3
            assert asyncio.get_running_loop().time() - started < 3 * 0.5 + 1  # bounded waits
            await client.aclose()
