"""Which browser origins may talk to the gateway: CORS for HTTP, the same rule for WebSockets.

Browsers do not apply CORS to WebSockets, so a foreign page could open a socket with the
player's cookie (cross-site WebSocket hijacking). The gateway therefore accepts an upgrade only
from its own origin or an origin the CORS settings allow.
"""

from __future__ import annotations

import re

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import HTTPConnection

from services.config import CorsSettings


class OriginPolicy:
    def __init__(self, cors: CorsSettings):
        self.cors = cors
        self._regex = re.compile(cors.allow_origin_regex) if cors.allow_origin_regex else None

    def allows(self, origin: str) -> bool:
        """An origin the CORS settings name, or that matches their regex.

        A ``*`` in CORS_ALLOW_ORIGINS admits no origin here: it lets any page *read* the public
        answers, which carry no cookie; a socket carries the player's cookie, so it is opened
        only from an origin named on purpose."""
        if origin in self.cors.allow_origins:
            return True
        return self._regex is not None and self._regex.fullmatch(origin) is not None

    def allows_socket(self, connection: HTTPConnection) -> bool:
        """A WebSocket upgrade may proceed: no Origin (not a browser), our own, or an allowed one
        (never by ``*``)."""
        origin = connection.headers.get("origin")
        if origin is None:
            return True
        scheme = "https" if connection.url.scheme in ("https", "wss") else "http"
        own = f"{scheme}://{connection.headers.get('host', '')}"
        return origin == own or self.allows(origin)

    def middleware(self) -> list[Middleware]:
        """Starlette's CORSMiddleware configured from CORS_*; none when CORS is off."""
        if not self.cors.enabled:
            return []
        return [
            Middleware(
                CORSMiddleware,
                allow_origins=list(self.cors.allow_origins),
                allow_origin_regex=self.cors.allow_origin_regex,
                allow_methods=list(self.cors.allow_methods),
                allow_headers=list(self.cors.allow_headers),
                allow_credentials=self.cors.allow_credentials,
                expose_headers=list(self.cors.expose_headers),
                max_age=self.cors.max_age,
            )
        ]
