"""HTTP and WebSocket telemetry of the gateway: OpenTelemetry's ASGI middleware for the spans,
``http.server.request.duration`` for every request (services.observability.telemetry hands it out).

Imported only when telemetry is on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from services.observability.telemetry import SESSION_ID, session_tag

if TYPE_CHECKING:
    from opentelemetry.trace import Span
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from services.observability.telemetry import Telemetry

HTTP_SERVER_REQUEST_DURATION = "http.server.request.duration"
# The stable HTTP semantic conventions' advisory buckets, in seconds.
_DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                     10.0)
# Headers whose values never go into a span, even if an operator asks the ASGI instrumentation
# to capture headers (OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_*).
_SECRET_HEADERS = ["cookie", "set-cookie", "authorization", "proxy-authorization"]


class HttpTelemetry:
    """OpenTelemetry's ASGI middleware (the spans, when tracing) plus
    ``http.server.request.duration``.

    The duration histogram is recorded here, for every request of the route Starlette matched,
    whether or not spans are made; the library's own HTTP metrics are switched off. Excluded
    paths (OTEL_EXCLUDED_PATHS by exact match, and the SDK's OTEL_PYTHON_ASGI_EXCLUDED_URLS /
    OTEL_PYTHON_EXCLUDED_URLS by regex) skip both.
    """

    def __init__(self, app: ASGIApp, telemetry: Telemetry,
                 session_of: Callable[[Scope], str | None] | None) -> None:
        from opentelemetry import trace
        from opentelemetry.util.http import get_excluded_urls, sanitize_method

        self.app = app
        self.excluded = frozenset(telemetry.settings.excluded_paths)
        self.excluded_urls = get_excluded_urls("ASGI")  # the SDK's variables, as it reads them
        self.session_of = session_of
        self._current_span = trace.get_current_span
        self._method = sanitize_method
        self.traced: ASGIApp = app
        if telemetry.tracing:
            from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
            from opentelemetry.metrics import NoOpMeter

            self.traced = OpenTelemetryMiddleware(
                app,
                excluded_urls=self.excluded_urls,
                tracer_provider=telemetry.tracer_provider,
                meter=NoOpMeter("tavolo.http"),
                server_request_hook=self._tag_request,
                exclude_spans=["receive", "send"],  # a span per request or connection, none per message
                http_capture_headers_sanitize_fields=_SECRET_HEADERS,
            )
        self.duration = telemetry.meter.create_histogram(
            HTTP_SERVER_REQUEST_DURATION, unit="s", description="Duration of HTTP server requests.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or scope.get("path") in self.excluded or (
                self.excluded_urls is not None
                and self.excluded_urls.url_disabled(_url(scope))):
            return await self.app(scope, receive, send)
        if kind == "websocket":
            return await self.traced(scope, receive, self._naming(scope, send))
        start = time.perf_counter()
        status: int | None = None
        error: str | None = None

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.traced(scope, receive, self._naming(scope, sending))
        except BaseException as exc:
            error = type(exc).__qualname__
            raise
        finally:
            self.duration.record(time.perf_counter() - start, _duration_attributes(
                scope, self._method(scope.get("method", "")), status, error))

    def _naming(self, scope: Scope, send: Send) -> Send:
        """``send``, first naming the span after the route that answered (``GET /api/games/{id}``)
        and setting ``http.route``."""
        named = False

        async def naming_send(message: Message) -> None:
            nonlocal named
            if not named:
                named = True
                route = _route(scope)
                if route is not None:
                    span = self._current_span()
                    method = scope.get("method")
                    span.update_name(f"{method} {route}" if method else route)
                    span.set_attribute("http.route", route)
            await send(message)

        return naming_send

    def _tag_request(self, span: Span, scope: Scope) -> None:
        if not span.is_recording():
            return
        query = scope.get("query_string") or b""
        if query:
            # The library puts the query in url.query (http.url under the old conventions);
            # values may be codes or states (the OIDC callback), so only the names stay.
            names = _query_names(query)
            set_by_library = getattr(span, "attributes", None) or {}
            if "url.query" in set_by_library:
                span.set_attribute("url.query", names)
            if "http.url" in set_by_library:
                span.set_attribute("http.url", _url(scope) + "?" + names)
        if self.session_of is not None:
            session_id = self.session_of(scope)
            if session_id:
                span.set_attribute(SESSION_ID, session_tag(session_id))


def _route(scope: Scope) -> str | None:
    """The route template Starlette's router matched (it leaves the route in the scope)."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) and template else None


def _duration_attributes(scope: Scope, method: str, status: int | None,
                         error: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {"http.request.method": method,
                                  "url.scheme": scope.get("scheme", "http")}
    route = _route(scope)
    if route is not None:
        attributes["http.route"] = route
    if status is not None:
        attributes["http.response.status_code"] = status
    if error is not None:
        attributes["error.type"] = error
    elif status is not None and status >= 500:
        attributes["error.type"] = str(status)
    return attributes


def _url(scope: Scope) -> str:
    """The request's URL without its query (what the excluded-URL patterns are matched with)."""
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1") or "localhost"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('path', '')}"


def _query_names(query: bytes) -> str:
    names = [name for name, _ in parse_qsl(query.decode("latin-1"), keep_blank_values=True)]
    return "&".join(f"{name}=REDACTED" for name in names)
