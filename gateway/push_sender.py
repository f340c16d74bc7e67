"""Web Push delivery (CONTRACT.md, Turn-based games; RFC 8030, 8291, 8292): queue a payload
for a member, send it to each of their subscriptions in the background.

:func:`push` returns at once: a move's or a request's path never waits for a push service.
Each gateway process has one :class:`PushSender`: a bounded queue (full: the push is dropped
with a warning, counted as ``dropped``) and a few worker tasks. A worker reads the member's
subscriptions from the lobby (PlayersService.ListPushSubscriptions) and sends to each, with
pywebpush's aiohttp sender on one shared session: the payload as JSON, ``aes128gcm``-encrypted
to the subscription's keys, signed by the VAPID key (``Authorization: vapid t=..., k=...``), a
TTL (how long the push service keeps it for an offline browser) and ``Urgency: normal``.

A send that meets 429, a 5xx or no answer is retried with jittered exponential backoff (a
429's or 503's Retry-After is honoured, capped), a few times in all; 404 or 410 means the
browser's subscription is gone, and the lobby forgets it (RemoveEndpoint); any other answer is
a refusal that would only come back, logged. Pushes are at most once: a gateway that stops
loses what its queue held (a turn notice is a nicety; the game waits, /ws/me and the app's
start page show the turn all the same).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import aiohttp
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02, VapidException
from pydantic import ValidationError
from pywebpush import WebPushException, webpush_async

from gateway.contract.push import PushPayload
from lobby.players_client import PlayersClient
from services.config import ConfigError, Settings, WebPushSettings
from services.observability import metrics
from services.rpc.errors import ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)
T = TypeVar("T")

DAY_SECONDS = 24 * 3600
# How long a push service keeps a push for a browser that is offline: a turn waits a day
# (DAILY_TURN_HOURS' default), an invitation holds 24 hours.
TTL_SECONDS = {"your_turn": DAY_SECONDS, "invited": DAY_SECONDS}
QUEUE_SIZE = 1000
WORKERS = 4
ATTEMPTS = 4  # the first send and three retries: about 1 + 2 + 4 seconds of backoff
FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 60.0  # also the most of a Retry-After we wait
SEND_TIMEOUT_SECONDS = 10.0
GONE = (404, 410)


@dataclass(frozen=True)
class VapidKey:
    """The application server's key: it signs each push; browsers subscribe with its public
    half (GET /api/push/key)."""

    vapid: Vapid02
    subject: str
    public_key: str  # base64url (no padding) of the uncompressed P-256 point: 65 bytes


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def load_vapid_key(settings: WebPushSettings) -> VapidKey:
    """The key of WEB_PUSH_VAPID_PRIVATE_KEY (PEM, or base64url of a raw 32-byte key or of DER);
    ConfigError when it is not a P-256 private key, or when it cannot sign with the subject."""
    text = settings.vapid_private_key.strip()
    try:
        if text.startswith("-----BEGIN"):
            private = serialization.load_pem_private_key(text.encode(), password=None)
            vapid = Vapid02(private)
        else:
            vapid = Vapid02.from_string(text)
        # P-256 only (RFC 8292); and py-vapid's own checks of the subject, at start, not at the
        # first push.
        if getattr(vapid.private_key.curve, "name", "") != "secp256r1":
            raise ValueError("not a P-256 key")
        vapid.sign({"sub": settings.subject, "aud": "https://push.example.net"})
    except (ValueError, TypeError, VapidException) as error:
        raise ConfigError(f"WEB_PUSH_VAPID_PRIVATE_KEY (with WEB_PUSH_SUBJECT) cannot sign pushes: "
                          f"{type(error).__name__}: {error}") from None
    public = vapid.public_key.public_bytes(serialization.Encoding.X962,
                                           serialization.PublicFormat.UncompressedPoint)
    return VapidKey(vapid, settings.subject, b64url(public))


def _retry_after(error: WebPushException) -> float | None:
    """A Retry-After of seconds or an HTTP date, as seconds from now; None when absent or bad."""
    raw = error.retry_after
    if not raw:
        return None
    if raw.strip().isdigit():
        return float(raw.strip())
    try:
        return max(0.0, parsedate_to_datetime(raw).timestamp() - now_ms() / 1000)
    except (TypeError, ValueError):
        return None


class PushSender:
    """The queue and its workers (see the module's docstring). Started by the first push,
    stopped by :meth:`aclose`."""

    def __init__(self, key: VapidKey, players: PlayersClient, *, queue_size: int = QUEUE_SIZE,
                 workers: int = WORKERS, attempts: int = ATTEMPTS,
                 first_delay_seconds: float = FIRST_DELAY_SECONDS,
                 max_delay_seconds: float = MAX_DELAY_SECONDS,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep):
        self.key = key
        self.players = players
        self.attempts = attempts
        self.first_delay_seconds = first_delay_seconds
        self.max_delay_seconds = max_delay_seconds
        self._sleep = sleep
        self._queue: asyncio.Queue[tuple[str, dict[str, str]]] = asyncio.Queue(queue_size)
        self._worker_count = workers
        self._workers: list[asyncio.Task[None]] = []
        self._session: aiohttp.ClientSession | None = None

    def enqueue(self, member_id: str, payload: Mapping[str, str]) -> None:
        """Queue the push; never waits (a full queue drops it, with a warning)."""
        if not self._workers:
            self._workers = [asyncio.create_task(self._work(), name=f"push-sender-{n}")
                             for n in range(self._worker_count)]
        try:
            self._queue.put_nowait((member_id, dict(payload)))
        except asyncio.QueueFull:
            metrics.push_sent("dropped")
            log.warning("the push queue is full (%d): a %s push was dropped", self._queue.maxsize,
                        payload.get("type"))

    async def idle(self) -> None:
        """Wait until every queued push has been handled (tests)."""
        await self._queue.join()

    async def aclose(self) -> None:
        """Stop the workers (what is queued is lost: pushes are at most once) and the session."""
        for worker in self._workers:
            worker.cancel()
        for worker in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        self._workers = []
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _work(self) -> None:
        while True:
            member_id, payload = await self._queue.get()
            try:
                await self._deliver(member_id, payload)
            except asyncio.CancelledError:
                raise
            except Exception:  # one push's failure never stops the worker
                log.exception("a %s push failed", payload.get("type"))
            finally:
                self._queue.task_done()

    async def _deliver(self, member_id: str, payload: dict[str, str]) -> None:
        try:
            subscriptions = await self._retried(lambda: self.players.list_push_subscriptions(member_id))
        except ServiceError as error:
            metrics.push_sent("failed")
            log.warning("a %s push was not sent: the subscriptions could not be read (%s)",
                        payload.get("type"), error.message)
            return
        if not subscriptions:
            return
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        ttl = TTL_SECONDS.get(payload.get("type", ""), DAY_SECONDS)
        await asyncio.gather(*(self._send(s.endpoint, s.p256dh, s.auth, data, ttl)
                               for s in subscriptions))

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:  # made in the running loop, kept for every push
            self._session = aiohttp.ClientSession()
        return self._session

    async def _send(self, endpoint: str, p256dh: str, auth: str, data: str, ttl: int) -> None:
        """One subscription: sent, retried, or given up (each outcome counted)."""
        delay = self.first_delay_seconds
        for attempt in range(1, self.attempts + 1):
            wait: float | None = None
            try:
                await webpush_async(
                    {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}, data,
                    vapid_private_key=self.key.vapid,
                    vapid_claims={"sub": self.key.subject},  # aud and exp are set per push
                    content_encoding="aes128gcm", ttl=ttl, headers={"Urgency": "normal"},
                    # explicit: pywebpush passes its None on, which aiohttp takes as no limit
                    timeout=SEND_TIMEOUT_SECONDS, aiohttp_session=self._client())
                metrics.push_sent("sent")
                return
            except WebPushException as error:
                status = error.status_code
                if status in GONE:
                    await self._forget(endpoint)
                    metrics.push_sent("gone")
                    return
                if status is None or (status != 429 and status < 500):
                    metrics.push_sent("refused")
                    log.warning("a push service refused a push (%s): %s", status, error.message)
                    return
                reason, wait = f"HTTP {status}", _retry_after(error)
            except (TimeoutError, aiohttp.ClientError, OSError) as error:
                reason = f"{type(error).__name__}: {error}"
            if attempt == self.attempts:
                metrics.push_sent("failed")
                log.warning("a push was not delivered after %d attempts (%s)", attempt, reason)
                return
            pause = wait if wait is not None else delay * random.uniform(0.5, 1.0)
            await self._sleep(min(pause, self.max_delay_seconds))
            delay = min(delay * 2, self.max_delay_seconds)

    async def _retried(self, call: Callable[[], Awaitable[T]]) -> T:
        """A lobby call, tried again with the sends' backoff while it fails for a while: the
        gateway's channel gives up within a second, for people waiting; a push can wait."""
        delay = self.first_delay_seconds
        for attempt in range(1, self.attempts + 1):
            try:
                return await call()
            except ServiceError as error:
                if not error.reason.transient or attempt == self.attempts:
                    raise
            await self._sleep(delay * random.uniform(0.5, 1.0))
            delay = min(delay * 2, self.max_delay_seconds)
        raise AssertionError("unreachable")

    async def _forget(self, endpoint: str) -> None:
        try:
            await self._retried(lambda: self.players.remove_endpoint(endpoint))
        except ServiceError as error:  # the next push finds it again, and tries again
            log.warning("a gone push subscription was not removed: %s", error.message)


def push_sender_for(settings: Settings, players: PlayersClient | None) -> PushSender | None:
    """The gateway's sender; None (push disabled) without a VAPID key or a players service.
    ConfigError when the key cannot sign."""
    if settings.web_push is None or players is None:
        return None
    return PushSender(load_vapid_key(settings.web_push), players)


async def push(app: Any, member_id: str, payload: dict[str, str]) -> None:
    """Queue ``payload`` (``{"type": "your_turn" | "invited", "game", "title", "body",
    "url"}``, CONTRACT.md) for every push subscription of ``member_id``; returns at once. With
    push disabled (no VAPID key), nothing is sent; a payload that is not a PushPayload is
    logged as an error and not sent."""
    sender: PushSender | None = getattr(app.state, "push", None)
    if sender is None:
        return
    try:  # what the service worker reads: a caller's mistake is found here, not in a browser
        PushPayload.model_validate(payload, strict=True)
    except ValidationError as error:
        log.error("a push payload not as the contract says was not sent: %s", error)
        return
    sender.enqueue(member_id, payload)
