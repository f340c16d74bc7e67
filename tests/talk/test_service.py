"""TalkService over a real socket: every call through TalkClient, on each store; errors as reasons."""

from __future__ import annotations

import grpc
import pytest

from services.rpc.errors import Reason, ServiceError
from tavolo.talk.v1 import talk_pb2, talk_pb2_grpc
from testing.nul_requests import nul_requests

TABLE = "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"


async def test_talk_round_trips_over_grpc(client, clock):
    said, replayed = await client.say(TABLE, "m-bob", "p-bob", "bob", spectator=False, seat=1, text=" ciao ",
                                      request_id="m-1")
    assert not replayed
    assert (await client.say(TABLE, "m-bob", "p-bob", "bob", spectator=False, seat=1, text=" ciao ",
                             request_id="m-1")) == (said, True)
    assert (said.text, said.seat, said.player, said.at_ms, len(said.id)) == ("ciao", 1, "p-bob", clock.now, 32)
    watcher, _ = await client.say(TABLE, "m-eve", "p-eve", "eve", spectator=True, seat=0, phrase="hello")
    assert watcher.spectator and watcher.seat == -1
    assert [m.id for m in await client.messages(TABLE, "m-alice", include_spectators=True)] == [said.id, watcher.id]
    assert [m.id for m in await client.messages(TABLE, "m-alice", include_spectators=False)] == [said.id]
    await client.mute("m-alice", "p-bob", "bob")
    assert [(m.player, m.name) for m in await client.mutes("m-alice")] == [("p-bob", "bob")]
    assert await client.messages(TABLE, "m-alice", include_spectators=False) == []
    await client.unmute("m-alice", "p-bob")
    assert await client.report(TABLE, said.id, "m-alice", "rude", include_spectators=False)
    [report] = await client.reports()
    assert (report.message.text, report.message.member_id, report.reporter) == ("ciao", "m-bob", "m-alice")
    closed = await client.close_report(report.id, "spoke to bob")
    assert closed.closed_at_ms == clock.now and await client.reports() == []
    assert await client.erase_member("m-bob") == 1


async def test_refusals_keep_their_reasons(client):
    with pytest.raises(ServiceError) as unknown:
        await client.say(TABLE, "m-bob", "p-bob", "bob", spectator=False, seat=1, phrase="psst")
    assert unknown.value.reason is Reason.INVALID_ARGUMENT and unknown.value.message == "Unknown phrase: psst"
    with pytest.raises(ServiceError) as missing:
        await client.close_report("0" * 32, "")
    assert missing.value.reason is Reason.INVALID_ARGUMENT and missing.value.message.startswith("Report not found")
    with pytest.raises(ServiceError, match=r"limit must be 0\.\.100"):
        await client.messages(TABLE, "", False, limit=101)


TALK = talk_pb2.DESCRIPTOR.services_by_name["TalkService"]
NUL_CASES = [(method, path, request) for method in TALK.methods for path, request in nul_requests(method)]


@pytest.mark.parametrize(("method", "path", "request_"), NUL_CASES,
                         ids=[f"{m.name}.{p}" for m, p, _ in NUL_CASES])
async def test_a_nul_in_any_string_is_invalid_argument(address, method, path, request_):
    """Postgres text cannot hold U+0000: every string of every request is refused naming it."""
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await getattr(talk_pb2_grpc.TalkServiceStub(channel), method.name)(request_)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == f"{path} must not contain NUL characters"
