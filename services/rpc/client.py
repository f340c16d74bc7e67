"""What every owner client (``<service>/client.py``) shares: its channel, its call wrapper, close.

An owner client is the only code that touches its service's stub. It subclasses
:class:`RpcClient`, turns messages into dataclasses, and lets :meth:`RpcClient._call` and
:meth:`RpcClient._stream` turn a failed call into the :class:`~services.rpc.errors.ServiceError`
the service raised (``from_rpc_error``), so callers never see grpc.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Self, TypeVar

import grpc

from services.rpc.channels import SERVICE_CALLS, CallPolicy, open_channel
from services.rpc.errors import from_rpc_error
from services.rpc.transport_security import ClientCredentials

Item = TypeVar("Item")
Response = TypeVar("Response")


class RpcClient:
    """One channel to ``service`` (its full proto name) at ``address``; close it, or use
    ``async with``.

    ``policy`` says how long a call waits for a service that does not answer
    (services.rpc.channels: SERVICE_CALLS between services, PEOPLE_CALLS in the gateway); a read
    (a call that changes nothing) gets its ``read_deadline_seconds``. ``deadline_seconds``,
    when set, is the deadline of every other call, passed with each call (grpcio mis-times a
    service-config timeout under about two seconds). ``channel_options`` add to or override
    the channel arguments, ``credentials`` are TLS and the bearer token
    (services.rpc.channels.open_channel).
    """

    def __init__(self, address: str, service: str, *, idempotent: tuple[str, ...] = (),
                 streams: tuple[str, ...] = (), timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, deadline_seconds: float | None = None,
                 channel_options: tuple[tuple[str, object], ...] = (),
                 credentials: ClientCredentials | None = None):
        self._address = address
        self._credentials = credentials
        # The bearer token goes with each call (cheaper than a channel interceptor).
        self._metadata = credentials.call_metadata() if credentials is not None else None
        self._service = service
        self._policy = policy
        self._options = channel_options
        self._channels: list[grpc.aio.Channel] = []
        self._channel = self._open(idempotent, timeout_seconds, streams)
        self._read_deadline = (policy.read_deadline_seconds
                               if policy.read_deadline_seconds is not None else deadline_seconds)
        self._deadline = deadline_seconds

    def _open(self, idempotent: tuple[str, ...], timeout_seconds: float,
              streams: tuple[str, ...] = ()) -> grpc.aio.Channel:
        """Another channel to the same service, closed with the client."""
        channel = open_channel(self._address, self._service, idempotent=idempotent,
                               timeout_seconds=timeout_seconds, options=self._options,
                               streams=streams, policy=self._policy,
                               credentials=self._credentials)
        self._channels.append(channel)
        return channel

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _call(self, method: Callable[..., Awaitable[Response]], request: Any, *,
                    read: bool = False) -> Response:
        """The call's response; a ``read`` gets the policy's read deadline."""
        try:
            return await method(request, timeout=self._read_deadline if read else self._deadline,
                                metadata=self._metadata)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None

    async def _stream(self, method: Callable[..., Any], request: Any,
                      convert: Callable[[Any], Item]) -> AsyncIterator[Item]:
        """Each message of the server stream ``method(request)`` (opened on the first
        iteration), converted; the call is cancelled when the iteration ends, however it ends."""
        call = method(request, metadata=self._metadata)
        try:
            async for response in call:
                yield convert(response)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            call.cancel()
