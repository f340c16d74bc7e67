"""TalkService over gRPC: messages in, :class:`~talk.service.Talk` calls, messages out."""

from __future__ import annotations

import grpc
from google.protobuf import timestamp_pb2

from services.rpc.server import Context
from talk.models import Message, Muted, Report
from talk.service import Talk
from tavolo.talk.v1 import talk_pb2, talk_pb2_grpc


def _timestamp(ms: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def message_of(message: Message) -> talk_pb2.ChatMessage:
    return talk_pb2.ChatMessage(id=message.id, table_id=message.table_id, player=message.player,
                                display_name=message.name, spectator=message.spectator,
                                seat_index=message.seat, phrase=message.phrase, text=message.text,
                                said_at=_timestamp(message.at_ms))


def _muted(muted: Muted) -> talk_pb2.MutedPlayer:
    return talk_pb2.MutedPlayer(player=muted.player, display_name=muted.name,
                                muted_at=_timestamp(muted.at_ms))


def _report(report: Report) -> talk_pb2.Report:
    message = talk_pb2.Report(id=report.id, message=message_of(report.message),
                              author_member_id=report.message.member_id,
                              reporter_member_id=report.reporter, reason=report.reason,
                              reported_at=_timestamp(report.at_ms), note=report.note)
    if report.closed_at_ms is not None:
        message.closed_at.CopyFrom(_timestamp(report.closed_at_ms))
    return message


class TalkServicer(talk_pb2_grpc.TalkServiceServicer):
    def __init__(self, talk: Talk) -> None:
        self.talk = talk

    async def Say(self, request: talk_pb2.SayRequest, context: Context) -> talk_pb2.SayResponse:
        message, replayed = await self.talk.say(
            request.table_id, request.member_id, request.player, request.display_name,
            spectator=request.spectator, seat=request.seat_index, phrase=request.phrase,
            text=request.text, request_id=request.request_id)
        return talk_pb2.SayResponse(message=message_of(message), replayed=replayed)

    async def ListMessages(self, request: talk_pb2.ListMessagesRequest,
                           context: Context) -> talk_pb2.ListMessagesResponse:
        messages = await self.talk.messages(request.table_id, request.member_id,
                                            request.include_spectators, request.limit)
        return talk_pb2.ListMessagesResponse(messages=[message_of(m) for m in messages])

    async def Mute(self, request: talk_pb2.MuteRequest, context: Context) -> talk_pb2.MuteResponse:
        await self.talk.mute(request.member_id, request.player, request.display_name)
        return talk_pb2.MuteResponse()

    async def Unmute(self, request: talk_pb2.UnmuteRequest,
                     context: Context) -> talk_pb2.UnmuteResponse:
        await self.talk.unmute(request.member_id, request.player)
        return talk_pb2.UnmuteResponse()

    async def ListMutes(self, request: talk_pb2.ListMutesRequest,
                        context: Context) -> talk_pb2.ListMutesResponse:
        mutes = await self.talk.mutes(request.member_id)
        return talk_pb2.ListMutesResponse(players=[_muted(m) for m in mutes])

    async def Report(self, request: talk_pb2.ReportRequest,
                     context: Context) -> talk_pb2.ReportResponse:
        found = await self.talk.report(request.table_id, request.message_id, request.member_id,
                                       request.reason, request.include_spectators)
        return talk_pb2.ReportResponse(found=found)

    async def EraseMember(self, request: talk_pb2.EraseMemberRequest,
                          context: Context) -> talk_pb2.EraseMemberResponse:
        deleted = await self.talk.erase_member(request.member_id, request.player)
        return talk_pb2.EraseMemberResponse(messages_deleted=deleted)

    async def ListReports(self, request: talk_pb2.ListReportsRequest,
                          context: Context) -> talk_pb2.ListReportsResponse:
        reports = await self.talk.reports(request.include_closed, request.limit)
        return talk_pb2.ListReportsResponse(reports=[_report(r) for r in reports])

    async def CloseReport(self, request: talk_pb2.CloseReportRequest,
                          context: Context) -> talk_pb2.CloseReportResponse:
        report = await self.talk.close_report(request.report_id, request.note)
        return talk_pb2.CloseReportResponse(report=_report(report))


def register(server: grpc.aio.Server, talk: Talk) -> None:
    talk_pb2_grpc.add_TalkServiceServicer_to_server(TalkServicer(talk), server)
