"""``TalkClient``: TalkService for the gateway (and the operators' tools), as talk.models values.

Every method raises :class:`~services.rpc.errors.ServiceError`, never a raw ``grpc.RpcError``.
The look-ups and the idempotent calls are retried by the channel while the service is briefly
unreachable; Say too, since its request id makes a retry store nothing more.
"""

from __future__ import annotations

from services.components import TALK_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from talk.models import Message, Muted, Report, new_id
from tavolo.talk.v1 import talk_pb2, talk_pb2_grpc

IDEMPOTENT = ("Say", "ListMessages", "Mute", "Unmute", "ListMutes", "EraseMember", "ListReports",
              "CloseReport")


def message_from(message: talk_pb2.ChatMessage, member_id: str = "") -> Message:
    return Message(id=message.id, table_id=message.table_id, member_id=member_id,
                   player=message.player, name=message.display_name, spectator=message.spectator,
                   seat=message.seat_index, phrase=message.phrase, text=message.text,
                   at_ms=message.said_at.ToMilliseconds())


def _report_from(report: talk_pb2.Report) -> Report:
    return Report(id=report.id, message=message_from(report.message, report.author_member_id),
                  reporter=report.reporter_member_id, reason=report.reason,
                  at_ms=report.reported_at.ToMilliseconds(),
                  closed_at_ms=report.closed_at.ToMilliseconds() if report.HasField("closed_at") else None,
                  note=report.note)


class TalkClient(RpcClient):
    """An async client of TalkService at ``address`` (the lobby's: LOBBY_ADDR)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        super().__init__(address, TALK_SERVICE, idempotent=IDEMPOTENT, timeout_seconds=timeout_seconds,
                         policy=policy, credentials=credentials)
        self._stub = talk_pb2_grpc.TalkServiceStub(self._channel)

    async def say(self, table_id: str, member_id: str, player: str, name: str, *, spectator: bool,
                  seat: int, phrase: str = "", text: str = "",
                  request_id: str = "") -> tuple[Message, bool]:
        """The message stored, and whether ``request_id`` was used before (it is the first's)."""
        response = await self._call(self._stub.Say, talk_pb2.SayRequest(
            table_id=table_id, member_id=member_id, player=player, display_name=name,
            spectator=spectator, seat_index=seat, phrase=phrase, text=text,
            request_id=request_id or new_id()))
        return message_from(response.message, member_id), response.replayed

    async def messages(self, table_id: str, reader: str, include_spectators: bool,
                       limit: int = 0) -> list[Message]:
        response = await self._call(self._stub.ListMessages, talk_pb2.ListMessagesRequest(
            table_id=table_id, member_id=reader, include_spectators=include_spectators,
            limit=limit), read=True)
        return [message_from(m) for m in response.messages]

    async def mute(self, member_id: str, player: str, name: str) -> None:
        await self._call(self._stub.Mute, talk_pb2.MuteRequest(member_id=member_id, player=player,
                                                               display_name=name))

    async def unmute(self, member_id: str, player: str) -> None:
        await self._call(self._stub.Unmute, talk_pb2.UnmuteRequest(member_id=member_id, player=player))

    async def mutes(self, member_id: str) -> list[Muted]:
        response = await self._call(self._stub.ListMutes,
                                    talk_pb2.ListMutesRequest(member_id=member_id), read=True)
        return [Muted(m.player, m.display_name, m.muted_at.ToMilliseconds()) for m in response.players]

    async def report(self, table_id: str, message_id: str, member_id: str, reason: str,
                     include_spectators: bool) -> bool:
        response = await self._call(self._stub.Report, talk_pb2.ReportRequest(
            table_id=table_id, message_id=message_id, member_id=member_id, reason=reason,
            include_spectators=include_spectators))
        return response.found

    async def erase_member(self, member_id: str, player: str = "") -> int:
        response = await self._call(self._stub.EraseMember,
                                    talk_pb2.EraseMemberRequest(member_id=member_id, player=player))
        return response.messages_deleted

    async def reports(self, include_closed: bool = False, limit: int = 0) -> list[Report]:
        response = await self._call(self._stub.ListReports, talk_pb2.ListReportsRequest(
            include_closed=include_closed, limit=limit), read=True)
        return [_report_from(r) for r in response.reports]

    async def close_report(self, report_id: str, note: str) -> Report:
        response = await self._call(self._stub.CloseReport,
                                    talk_pb2.CloseReportRequest(report_id=report_id, note=note))
        return _report_from(response.report)
