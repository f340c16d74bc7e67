"""How many client addresses the requests come from: the sign of a wrong FORWARDED_ALLOW_IPS.

Behind an ingress whose X-Forwarded-For the gateway does not believe (FORWARDED_ALLOW_IPS not
its range), or behind SNAT, every request seems to come from the proxy's few addresses: the
whole site then shares one address's rate-limit bucket, and the logs name no player's address.
:class:`ClientAddressWatch` counts the distinct addresses of each window of requests, exported
as the ``tavolo.gateway.client_addresses`` gauge, and warns once when the first window that has
many sessions in it has them all behind a few addresses (not loopback: ``make run``).
"""

from __future__ import annotations

import ipaddress
import logging

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.sessions import session_id

log = logging.getLogger(__name__)

GAUGE = "tavolo.gateway.client_addresses"
WINDOW_REQUESTS = 500  # requests a window counts
FEW_ADDRESSES = 2  # at most this many addresses ...
MANY_SESSIONS = 20  # ... for at least this many sessions: a proxy's address, not the players'
_MAX_TRACKED = 10_000  # a window's sets stay bounded whatever the traffic


class ClientAddresses:
    """The distinct addresses (and sessions) of the requests, window by window."""

    def __init__(self, window: int = WINDOW_REQUESTS, few: int = FEW_ADDRESSES,
                 many_sessions: int = MANY_SESSIONS):
        self._window, self._few, self._many_sessions = window, few, many_sessions
        self._seen = 0
        self._addresses: set[str] = set()
        self._sessions: set[str] = set()
        self.last_window: int | None = None  # distinct addresses of the last full window
        self.warned = False

    def observe(self, address: str | None, session: str | None) -> None:
        if address is not None and len(self._addresses) < _MAX_TRACKED:
            self._addresses.add(address)
        if session is not None and len(self._sessions) < _MAX_TRACKED:
            self._sessions.add(session)
        self._seen += 1
        if self._seen >= self._window:
            self._close_window()

    def _close_window(self) -> None:
        self.last_window = len(self._addresses)
        if (not self.warned and len(self._sessions) >= self._many_sessions
                and 0 < len(self._addresses) <= self._few
                and not all(_loopback(address) for address in self._addresses)):
            self.warned = True
            log.warning(
                "the last %d requests, of %d sessions, came from %d address(es) (%s): the "
                "gateway seems to see its proxy's address rather than the players'. Set "
                "FORWARDED_ALLOW_IPS to the ingress's range, or every player shares one "
                "rate-limit bucket (docs/operations.md, Rate limits)", self._seen,
                len(self._sessions), len(self._addresses), ", ".join(sorted(self._addresses)))
        self._seen = 0
        self._addresses.clear()
        self._sessions.clear()

    async def count(self) -> int:
        """The gauge's reading: the last full window's distinct addresses (0 before one)."""
        return self.last_window or 0


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # a test client's name, a Unix socket
        return True


class ClientAddressWatch:
    """ASGI middleware feeding :class:`ClientAddresses` with each request's and socket's address
    (as uvicorn's proxy-headers handling leaves it) and session."""

    def __init__(self, app: ASGIApp, addresses: ClientAddresses):
        self.app = app
        self.addresses = addresses

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            self.addresses.observe(client[0] if client else None,
                                   session_id(HTTPConnection(scope)))
        await self.app(scope, receive, send)
