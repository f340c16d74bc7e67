"""Settings: every environment variable of the README, read once at start into typed objects.

Nothing else in tavolo reads ``os.environ``. A bad value raises :class:`ConfigError` naming the
variable, and the CLI turns it into a one-line message and a non-zero exit.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from redis.connection import parse_url as parse_redis_url

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]+")
_OIDC_VARIABLE = re.compile(r"OIDC_(\d+)_([A-Z_]+)")
_OIDC_FIELDS = (
    "PROVIDER",
    "ISSUER",
    "CLIENT_ID",
    "CLIENT_SECRET",
    "REDIRECT_URI",
    "POST_LOGIN_REDIRECT",
    "POST_LOGOUT_REDIRECT",
)
_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
# An HMAC key shorter than this is guessable; 16 characters is the least we accept.
_MIN_SECRET_LENGTH = 16
_MILLISECOND = {"seconds": 0.001, "hours": 1 / 3_600_000}  # the least duration Env.number takes

DEV_ISSUER = "http://localhost:8180/tavolo"
DEV_CLIENT_ID = "tavolo"


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class OidcProvider:
    """One OpenID Connect provider the gateway offers for login (``OIDC_<n>_*``)."""

    name: str
    issuer: str
    client_id: str
    client_secret: str | None
    redirect_uri: str
    post_login_redirect: str = "/"
    post_logout_redirect: str = "/"


@dataclass(frozen=True)
class CorsSettings:
    """``CORS_*``: CORS is on when origins or the regex is set."""

    allow_origins: tuple[str, ...] = ()
    allow_origin_regex: str | None = None
    allow_methods: tuple[str, ...] = ("GET",)
    allow_headers: tuple[str, ...] = ()
    allow_credentials: bool = False
    expose_headers: tuple[str, ...] = ()
    max_age: int = 600

    @property
    def enabled(self) -> bool:
        return bool(self.allow_origins) or self.allow_origin_regex is not None


@dataclass(frozen=True)
class TelemetrySettings:
    """``OTEL_*`` and ``METRICS_PORT``: OpenTelemetry export over OTLP/HTTP, Prometheus scrapes.

    The exporters' destination (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``..._HEADERS`` and their
    per-signal forms) is read by the OpenTelemetry SDK itself, as it documents; the generic
    ones are checked here only so that a malformed value stops the process at start.
    """

    enabled: bool = False
    service_name: str = "tavolo"
    excluded_paths: tuple[str, ...] = ("/api/health",)
    # None: the SDK's own OTEL_METRIC_EXPORT_INTERVAL (default 60000).
    metric_export_interval_ms: int | None = None
    metrics_poll_interval_s: int = 15
    # Every process's Prometheus port (0: none), the gateway's too: never its public port.
    metrics_port: int = 9464
    sdk_disabled: bool = False  # OTEL_SDK_DISABLED: no telemetry at all, whatever else says
    # OTEL_SEMCONV_STABILITY_OPT_IN, handed to the instrumentations (stable HTTP by default).
    semconv_opt_in: str = "http"

    @property
    def exporting(self) -> bool:
        """Traces, metrics and logs go out over OTLP."""
        return self.enabled and not self.sdk_disabled

    @property
    def scraped(self) -> bool:
        """Metrics are served for Prometheus (``/metrics``)."""
        return self.metrics_port != 0 and not self.sdk_disabled


@dataclass(frozen=True)
class GrpcSecurity:
    """``GRPC_*``: who may call this process's gRPC service, and how it calls the others
    (docs/grpc-auth.md). All unset: plaintext, and every caller is welcome."""

    callers_file: str | None = None     # the callers it accepts and what each may call
    token_file: str | None = None       # the bearer token it sends with its own calls
    tls_cert_file: str | None = None    # its certificate (chain), served and presented
    tls_key_file: str | None = None
    tls_ca_file: str | None = None      # verifies the services and, served, requires callers'
    tls_server_name: str | None = None  # the name expected in the services' certificates
    # (service, name): the name expected in that one service's certificate, over tls_server_name
    tls_service_names: tuple[tuple[str, str], ...] = ()
    health_port: int | None = None      # a plaintext port serving only the health service

    @property
    def serves_tls(self) -> bool:
        """A service serves TLS: it has a certificate."""
        return self.tls_cert_file is not None

    @property
    def calls_tls(self) -> bool:
        """Calls to the services go over TLS: a CA verifies them, or a certificate is shown."""
        return self.tls_ca_file is not None or self.tls_cert_file is not None


@dataclass(frozen=True)
class Database:
    """Where a service's Postgres connections go, by what they do (docs/operations.md, "Behind
    PgBouncer"): ``url`` may point at a transaction pooler, ``listen_url`` must not."""

    url: str          # every write, and every read that must see them (DATABASE_URL)
    listen_url: str   # LISTEN keeps a session of its own (DATABASE_LISTEN_URL)
    read_url: str     # history, ratings, leaderboard: a replica may serve them (DATABASE_READ_URL)
    statement_cache_size: int = 100  # asyncpg's, per connection; 0 behind a transaction pooler

    @property
    def separate_reads(self) -> bool:
        """The reads go elsewhere than the writes: a pool of their own."""
        return self.read_url != self.url


@dataclass(frozen=True)
class RateLimitSettings:
    """``RATE_LIMIT_*``: the gateway's token buckets (gateway.rate_limits). Each kind is limited
    per session at these rates, and per client address at ``per_ip_factor`` times them (many
    players may share one address behind a NAT)."""

    enabled: bool = True
    login_per_minute: int = 10
    login_burst: int = 10
    writes_per_minute: int = 120
    writes_burst: int = 30
    ws_messages_per_second: int = 10
    ws_messages_burst: int = 40
    per_ip_factor: int = 10


@dataclass(frozen=True)
class WebPushSettings:
    """``WEB_PUSH_*``: the VAPID key that signs each push (RFC 8292) and its ``sub`` claim.
    The key's text is loaded (and checked) by the gateway (gateway.push_sender)."""

    vapid_private_key: str = field(repr=False)  # PEM, or base64url (a raw 32-byte key or DER)
    subject: str = ""  # mailto: or https:, whom the push services contact about our pushes


@dataclass(frozen=True)
class Settings:
    """The whole configuration of a tavolo process."""

    database_url: str | None = None
    # None: the same as database_url (see Database).
    database_listen_url: str | None = None
    database_read_url: str | None = None
    database_statement_cache_size: int = 100
    redis_url: str | None = None
    redis_key_prefix: str = "tavolo"
    # REDIS_SENTINELS (host, port) pairs and the service they watch: then the master they name
    # replaces REDIS_URL's host (services.stores.redis_client).
    redis_sentinels: tuple[tuple[str, int], ...] = ()
    redis_sentinel_service: str | None = None
    oidc_providers: tuple[OidcProvider, ...] = ()
    game_ttl_seconds: int = 86400
    hand_ack_timeout_seconds: float = 30
    turn_timeout_seconds: float = 30
    entropy_timeout_seconds: float = 10
    daily_turn_hours: float = 24  # every deadline of a daily game (game.pace)
    deadline_heartbeat_ms: int = 30000
    deadline_lease_ms: int = 30000
    dummy_game: bool = False
    log_level: str = "INFO"
    logging_config: str | None = None
    log_format: str = "text"  # or "json": one object a line
    cors: CorsSettings = field(default_factory=CorsSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)
    grpc_security: GrpcSecurity = field(default_factory=GrpcSecurity)
    app_host: str = "0.0.0.0"
    app_port: int = 8080
    static_dir: str = "web/dist"
    # A stopping gateway's pause, refusing new sockets, before it closes the open ones (1012).
    shutdown_drain_seconds: int = 0
    lobby_addr: str = "127.0.0.1:50051"
    game_addr: str = "127.0.0.1:50052"
    # Where the gateway finds every game replica, to send each table to its owner (game.owners);
    # None: behind game_addr.
    game_replicas_addr: str | None = None
    deadlines_addr: str = "127.0.0.1:50053"
    stats_addr: str = "127.0.0.1:50054"
    bots_addr: str = "127.0.0.1:50055"
    # How long a gRPC service keeps a caller's connection before it asks the caller to open
    # another (GOAWAY), so that callers find replicas that came since; 0: as long as it lasts.
    grpc_max_connection_age_seconds: int = 300
    bot_think_ms: int = 900  # a bot's pause before each play and acknowledgement
    analysis_work: int = 80_000  # simulated plays per position of a match's analysis (bots.analysis.judge)
    abandon_after_timeouts: int = 2  # auto-played turns in a row, offline, before a takeover; 0: never
    # Days after which a finished table's move log is compacted (game.retention); None: never.
    log_retention_days: int | None = None
    # Days after which the talk of a finished table is deleted (talk.service.ChatRetention).
    chat_retention_days: int = 30
    # Whose X-Forwarded-* headers the gateway believes: addresses and networks, or ("*",).
    forwarded_allow_ips: tuple[str, ...] = ("127.0.0.1",)
    rate_limits: RateLimitSettings = field(default_factory=RateLimitSettings)
    # Kept out of repr so that a logged Settings does not leak it.
    stats_cursor_secret: str | None = field(default=None, repr=False)
    # None: no VAPID key, Web Push disabled (GET /api/push/key is 404).
    web_push: WebPushSettings | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read every variable; unset or empty ones take the README's default."""
        env = _Env(os.environ if environ is None else environ)
        database_url = _database_url(env)
        return cls(
            database_url=database_url,
            database_listen_url=_database_use_url(env, "DATABASE_LISTEN_URL", database_url),
            database_read_url=_database_use_url(env, "DATABASE_READ_URL", database_url),
            database_statement_cache_size=env.integer("DATABASE_STATEMENT_CACHE_SIZE", 100,
                                                      minimum=0),
            redis_url=_redis_url(env),
            redis_key_prefix=_redis_key_prefix(env),
            redis_sentinels=_redis_sentinels(env),
            redis_sentinel_service=env.text("REDIS_SENTINEL_SERVICE"),
            oidc_providers=_oidc_providers(env),
            game_ttl_seconds=env.integer("GAME_TTL_SECONDS", 86400, minimum=1),
            hand_ack_timeout_seconds=env.number("HAND_ACK_TIMEOUT_SECONDS", 30),
            turn_timeout_seconds=env.number("TURN_TIMEOUT_SECONDS", 30),
            entropy_timeout_seconds=env.number("ENTROPY_TIMEOUT_SECONDS", 10),
            daily_turn_hours=env.number("DAILY_TURN_HOURS", 24, unit="hours"),
            deadline_heartbeat_ms=env.integer("DEADLINE_HEARTBEAT_MS", 30000, minimum=10),
            deadline_lease_ms=env.integer("DEADLINE_LEASE_MS", 30000, minimum=1000),
            dummy_game=env.flag("DUMMY_GAME", False),
            log_level=env.choice("LOG_LEVEL", "INFO", _LOG_LEVELS),
            logging_config=env.text("LOGGING_CONFIG"),
            log_format=env.choice("LOG_FORMAT", "TEXT", ("TEXT", "JSON")).lower(),
            cors=_cors(env),
            telemetry=_telemetry(env),
            grpc_security=_grpc_security(env),
            app_host=env.text("APP_HOST") or "0.0.0.0",
            app_port=env.port("APP_PORT", 8080),
            static_dir=env.text("STATIC_DIR") or "web/dist",
            shutdown_drain_seconds=env.integer("SHUTDOWN_DRAIN_SECONDS", 0, minimum=0),
            lobby_addr=env.address("LOBBY_ADDR", "127.0.0.1:50051"),
            game_addr=env.address("GAME_ADDR", "127.0.0.1:50052"),
            game_replicas_addr=(env.address("GAME_REPLICAS_ADDR", "")
                                if env.text("GAME_REPLICAS_ADDR") else None),
            deadlines_addr=env.address("DEADLINES_ADDR", "127.0.0.1:50053"),
            stats_addr=env.address("STATS_ADDR", "127.0.0.1:50054"),
            bots_addr=env.address("BOTS_ADDR", "127.0.0.1:50055"),
            grpc_max_connection_age_seconds=env.integer("GRPC_MAX_CONNECTION_AGE_SECONDS", 300,
                                                        minimum=0),
            bot_think_ms=env.integer("BOT_THINK_MS", 900, minimum=0),
            analysis_work=env.integer("ANALYSIS_WORK", 80_000, minimum=1_000),
            abandon_after_timeouts=env.integer("ABANDON_AFTER_TIMEOUTS", 2, minimum=0),
            log_retention_days=(env.integer("LOG_RETENTION_DAYS", 0, minimum=1)
                                if env.text("LOG_RETENTION_DAYS") else None),
            chat_retention_days=env.integer("CHAT_RETENTION_DAYS", 30, minimum=1),
            forwarded_allow_ips=_forwarded_allow_ips(env),
            rate_limits=_rate_limits(env),
            stats_cursor_secret=env.secret("STATS_CURSOR_SECRET", _MIN_SECRET_LENGTH),
            web_push=_web_push(env),
        )

    @property
    def database(self) -> Database | None:
        """Postgres by use; None when no database is configured (the in-memory stores)."""
        if self.database_url is None:
            return None
        return Database(url=self.database_url,
                        listen_url=self.database_listen_url or self.database_url,
                        read_url=self.database_read_url or self.database_url,
                        statement_cache_size=self.database_statement_cache_size)

    def provider(self, name: str) -> OidcProvider | None:
        return next((p for p in self.oidc_providers if p.name == name), None)


class _Env:
    """Typed reads of one environment mapping, each error naming its variable."""

    def __init__(self, environ: Mapping[str, str]):
        self.environ = environ

    def text(self, name: str) -> str | None:
        value = self.environ.get(name, "").strip()
        return value or None

    def integer(self, name: str, default: int, minimum: int | None = None) -> int:
        raw = self.text(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
        if minimum is not None and value < minimum:
            raise ConfigError(f"{name} must be at least {minimum}, got {value}")
        return value

    def number(self, name: str, default: float, unit: str = "seconds") -> float:
        """A positive duration in ``unit`` (``seconds`` or ``hours``), decimals allowed."""
        raw = self.text(name)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a number of {unit}, got {raw!r}") from None
        if not value > 0 or value == float("inf"):
            raise ConfigError(f"{name} must be a positive number of {unit}, got {raw!r}")
        least = _MILLISECOND[unit]
        if value < least:  # deadlines are kept in whole milliseconds
            raise ConfigError(f"{name} must be at least {least:.10g} (one millisecond), got {raw!r}")
        return value

    def port(self, name: str, default: int) -> int:
        value = self.integer(name, default, minimum=0)
        if value > 65535:
            raise ConfigError(f"{name} must be a TCP port (0..65535), got {value}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        raw = self.environ.get(name)
        if raw is None:
            return default
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ConfigError(f"{name} must be one of 1/true/yes/on or 0/false/no/off, got {raw!r}")

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        raw = self.text(name)
        if raw is None:
            return default
        if raw.upper() not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
        return raw.upper()

    def csv(self, name: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        raw = self.text(name)
        if raw is None:
            return default
        return tuple(part.strip() for part in raw.split(",") if part.strip())

    def pairs(self, name: str) -> tuple[tuple[str, str], ...]:
        pairs = []
        for item in self.csv(name):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ConfigError(f"{name} must be comma-separated key=value pairs, got {item!r}")
            pairs.append((key.strip(), value.strip()))
        return tuple(pairs)

    def url(self, name: str) -> str | None:
        raw = self.text(name)
        if raw is not None:
            parts = urlsplit(raw)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ConfigError(f"{name} must be an http(s) URL, got {raw!r}")
        return raw

    def regex(self, name: str) -> str | None:
        raw = self.text(name)
        if raw is not None:
            try:
                re.compile(raw)
            except re.error as error:
                raise ConfigError(f"{name} is not a valid regular expression: {error}") from None
        return raw

    def secret(self, name: str, min_length: int) -> str | None:
        """A key, or None when unset; the error gives its length, never the value."""
        raw = self.text(name)
        if raw is not None and len(raw) < min_length:
            raise ConfigError(
                f"{name} must be at least {min_length} characters long, got {len(raw)}"
            )
        return raw

    def address(self, name: str, default: str) -> str:
        raw = self.text(name) or default
        host, sep, port = raw.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) <= 65535:
            raise ConfigError(f"{name} must be host:port, got {raw!r}")
        return raw


def _telemetry(env: _Env) -> TelemetrySettings:
    env.url("OTEL_EXPORTER_OTLP_ENDPOINT")   # the SDK reads both: checked here, at start
    env.pairs("OTEL_EXPORTER_OTLP_HEADERS")
    interval = env.text("OTEL_METRIC_EXPORT_INTERVAL_MILLIS")  # tavolo's older name
    return TelemetrySettings(
        enabled=env.flag("OTEL_ENABLED", False),
        service_name=env.text("OTEL_SERVICE_NAME") or "tavolo",
        excluded_paths=env.csv("OTEL_EXCLUDED_PATHS", default=("/api/health",)),
        metric_export_interval_ms=(None if interval is None else env.integer(
            "OTEL_METRIC_EXPORT_INTERVAL_MILLIS", 60000, minimum=1)),
        metrics_poll_interval_s=env.integer("OTEL_METRICS_POLL_INTERVAL_SECONDS", 15, minimum=1),
        metrics_port=env.port("METRICS_PORT", 9464),
        # The SDK's own reading of it is "true", case-insensitive; anything else keeps it on.
        sdk_disabled=(env.text("OTEL_SDK_DISABLED") or "").lower() == "true",
        semconv_opt_in=env.text("OTEL_SEMCONV_STABILITY_OPT_IN") or "http",
    )


def _grpc_security(env: _Env) -> GrpcSecurity:
    cert, key = env.text("GRPC_TLS_CERT_FILE"), env.text("GRPC_TLS_KEY_FILE")
    if (cert is None) != (key is None):
        raise ConfigError("GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE go together: set both or "
                          "neither")
    health_port = env.port("GRPC_HEALTH_PORT", 0)
    return GrpcSecurity(
        callers_file=env.text("GRPC_CALLERS_FILE"),
        token_file=env.text("GRPC_TOKEN_FILE"),
        tls_cert_file=cert,
        tls_key_file=key,
        tls_ca_file=env.text("GRPC_TLS_CA_FILE"),
        tls_server_name=env.text("GRPC_TLS_SERVER_NAME"),
        tls_service_names=tuple(
            (service, name) for service, name in (
                ("lobby", env.text("LOBBY_TLS_SERVER_NAME")),
                ("game", env.text("GAME_TLS_SERVER_NAME")),
                ("deadlines", env.text("DEADLINES_TLS_SERVER_NAME")),
                ("stats", env.text("STATS_TLS_SERVER_NAME")),
                ("bots", env.text("BOTS_TLS_SERVER_NAME")),
            ) if name is not None),
        health_port=health_port or None,
    )


def _cors(env: _Env) -> CorsSettings:
    cors = CorsSettings(
        allow_origins=env.csv("CORS_ALLOW_ORIGINS"),
        allow_origin_regex=env.regex("CORS_ALLOW_ORIGIN_REGEX"),
        allow_methods=env.csv("CORS_ALLOW_METHODS") or ("GET",),
        allow_headers=env.csv("CORS_ALLOW_HEADERS"),
        allow_credentials=env.flag("CORS_ALLOW_CREDENTIALS", False),
        expose_headers=env.csv("CORS_EXPOSE_HEADERS"),
        max_age=env.integer("CORS_MAX_AGE", 600, minimum=0),
    )
    # Starlette answers a credentialed request under "*" with the request's own Origin: every
    # site on the web could then call the API with the player's cookie.
    if cors.allow_credentials and "*" in cors.allow_origins:
        raise ConfigError(
            "CORS_ALLOW_ORIGINS=* cannot go with CORS_ALLOW_CREDENTIALS=true (any site could "
            "make requests with the player's cookie): list the origins, or turn credentials off"
        )
    return cors


def _rate_limits(env: _Env) -> RateLimitSettings:
    """Every rate and burst is a whole number of at least 1: a limit of 0 would refuse everyone
    (RATE_LIMIT_ENABLED=false is the way to turn them off)."""
    default = RateLimitSettings()
    return RateLimitSettings(
        enabled=env.flag("RATE_LIMIT_ENABLED", default.enabled),
        login_per_minute=env.integer("RATE_LIMIT_LOGIN_PER_MINUTE", default.login_per_minute,
                                     minimum=1),
        login_burst=env.integer("RATE_LIMIT_LOGIN_BURST", default.login_burst, minimum=1),
        writes_per_minute=env.integer("RATE_LIMIT_WRITES_PER_MINUTE", default.writes_per_minute,
                                      minimum=1),
        writes_burst=env.integer("RATE_LIMIT_WRITES_BURST", default.writes_burst, minimum=1),
        ws_messages_per_second=env.integer("RATE_LIMIT_WS_MESSAGES_PER_SECOND",
                                           default.ws_messages_per_second, minimum=1),
        ws_messages_burst=env.integer("RATE_LIMIT_WS_MESSAGES_BURST", default.ws_messages_burst,
                                      minimum=1),
        per_ip_factor=env.integer("RATE_LIMIT_PER_IP_FACTOR", default.per_ip_factor, minimum=1),
    )


def _forwarded_allow_ips(env: _Env) -> tuple[str, ...]:
    """Addresses (``10.0.0.7``, ``::1``) and networks (``10.0.0.0/8``), or ``*`` alone.

    uvicorn takes whatever it cannot parse as a literal host name that never matches, so a typo
    would silently distrust the proxy: here it is an error instead."""
    entries = env.csv("FORWARDED_ALLOW_IPS", default=("127.0.0.1",))
    if "*" in entries:
        if len(entries) > 1:
            raise ConfigError("FORWARDED_ALLOW_IPS must be * alone or a list of addresses, "
                              f"got {','.join(entries)!r}")
        return entries
    for entry in entries:
        try:
            if "/" in entry:
                ipaddress.ip_network(entry)
            else:
                ipaddress.ip_address(entry)
        except ValueError as error:  # e.g. "10.0.0.1/8 has host bits set"
            raise ConfigError(
                "FORWARDED_ALLOW_IPS must be comma-separated IP addresses or networks "
                f"(e.g. 10.0.0.0/8), or *: {error}"
            ) from None
    return entries


def _url_port(name: str, url: str) -> None:
    """Refuse a URL whose port is not a number of 1..65535 (the error never shows the URL,
    which may hold a password)."""
    try:
        port = urlsplit(url).port
    except ValueError:
        port = 0
    if port == 0:
        raise ConfigError(f"{name} has a port that is not a number of 1..65535")


# A Redis Cluster is named by its URL's scheme (any one node: the client learns the others).
REDIS_CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")


def _redis_url(env: _Env) -> str | None:
    """REDIS_URL; with REDIS_SENTINELS it may be left out (then ``redis://``: no password,
    database 0), its host being the Sentinels' master anyway."""
    url = env.text("REDIS_URL")
    sentinels = bool(env.csv("REDIS_SENTINELS"))
    if url is None:
        return "redis://" if sentinels else None
    if not url.startswith(("redis://", "rediss://", "unix://", *REDIS_CLUSTER_SCHEMES)):
        raise ConfigError("REDIS_URL must be a redis://, rediss://, unix://, redis+cluster:// or "
                          "rediss+cluster:// URL")
    if sentinels and not url.startswith(("redis://", "rediss://")):
        raise ConfigError("REDIS_URL must be a redis:// or rediss:// URL with REDIS_SENTINELS "
                          "(the Sentinels name the master's host)")
    _url_port("REDIS_URL", url)
    cluster = url.startswith(REDIS_CLUSTER_SCHEMES)
    try:
        options = parse_redis_url(url.replace("+cluster", "", 1) if cluster else url)
    except ValueError as error:  # e.g. a database number that is not one
        raise ConfigError(f"REDIS_URL is not a valid Redis URL: {error}") from None
    if cluster and options.get("db", 0) != 0:
        raise ConfigError("REDIS_URL: a Redis Cluster has database 0 only")
    return url


def _postgres_dsn(name: str, url: str) -> str:
    if not url.startswith(("postgres://", "postgresql://")):
        raise ConfigError(f"{name} must be a postgres:// or postgresql:// DSN")
    _url_port(name, url)
    return url


def _database_use_url(env: _Env, name: str, database_url: str | None) -> str | None:
    """DATABASE_LISTEN_URL / DATABASE_READ_URL: another way to the database DATABASE_URL (or
    its parts) names; meaningless without one."""
    url = env.text(name)
    if url is None:
        return None
    if database_url is None:
        raise ConfigError(f"{name} is set but no database is: set DATABASE_URL or the "
                          "DATABASE_* parts too")
    return _postgres_dsn(name, url)


def _redis_key_prefix(env: _Env) -> str:
    prefix = env.text("REDIS_KEY_PREFIX") or "tavolo"
    if "{" in prefix or "}" in prefix:  # the keys' hash tags are in braces (services.stores.Keys)
        raise ConfigError(f"REDIS_KEY_PREFIX must not contain {{ or }}, got {prefix!r}")
    return prefix


def _redis_sentinels(env: _Env) -> tuple[tuple[str, int], ...]:
    """REDIS_SENTINELS as (host, port) pairs; REDIS_SENTINEL_SERVICE must go with it."""
    entries = env.csv("REDIS_SENTINELS")
    service = env.text("REDIS_SENTINEL_SERVICE")
    if bool(entries) != (service is not None):
        raise ConfigError("REDIS_SENTINELS and REDIS_SENTINEL_SERVICE go together: set both or "
                          "neither")
    sentinels = []
    for entry in entries:
        host, sep, port = entry.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")  # [::1]:26379
        if not sep or not host or not port.isdigit() or not 0 < int(port) <= 65535:
            raise ConfigError(f"REDIS_SENTINELS must be comma-separated host:port, got {entry!r}")
        sentinels.append((host, int(port)))
    return tuple(sentinels)


def _database_url(env: _Env) -> str | None:
    url = env.text("DATABASE_URL")
    if url is not None:  # the DATABASE_* parts are then ignored
        return _postgres_dsn("DATABASE_URL", url)
    parts = {
        part: env.text(f"DATABASE_{part}")
        for part in ("ENGINE", "HOST", "PORT", "NAME", "USER", "PASSWORD", "OPTIONS")
    }
    engine = (parts["ENGINE"] or "postgres").lower()
    if engine not in ("postgres", "postgresql"):
        raise ConfigError(f"DATABASE_ENGINE must be postgres (Postgres only), got {engine!r}")
    if not any(parts.values()):
        return None
    port = parts["PORT"]
    if port is not None and env.port("DATABASE_PORT", 5432) == 0:
        raise ConfigError("DATABASE_PORT must be a TCP port (1..65535), got 0")
    user = quote(parts["USER"] or "tavolo", safe="")
    password = quote(parts["PASSWORD"] or "password", safe="")
    host = parts["HOST"] or "localhost"
    netloc = f"{user}:{password}@{host}" + (f":{port}" if port else "")
    dsn = f"{engine}://{netloc}/{quote(parts['NAME'] or 'tavolo', safe='')}"
    if parts["OPTIONS"]:
        dsn += "?" + parts["OPTIONS"].lstrip("?")
    return dsn


def _oidc_providers(env: _Env) -> tuple[OidcProvider, ...]:
    indices: dict[int, set[str]] = {}
    for variable in env.environ:
        match = _OIDC_VARIABLE.fullmatch(variable)
        if match is None:
            continue
        index, field_name = int(match.group(1)), match.group(2)
        if field_name not in _OIDC_FIELDS:
            raise ConfigError(f"{variable} is not a known OIDC setting ({', '.join(_OIDC_FIELDS)})")
        indices.setdefault(index, set()).add(field_name)
    if not indices:
        return (
            OidcProvider(
                name="default",
                issuer=DEV_ISSUER,
                client_id=DEV_CLIENT_ID,
                client_secret=None,
                redirect_uri="http://localhost:8080/auth/default/callback",
            ),
        )
    expected = list(range(len(indices)))
    if sorted(indices) != expected:
        missing = next(i for i in expected if i not in indices)
        raise ConfigError(
            f"OIDC_{missing}_* is missing: provider indices must be contiguous from 0 "
            f"(found {', '.join(str(i) for i in sorted(indices))})"
        )
    providers: list[OidcProvider] = []
    for index in expected:
        prefix = f"OIDC_{index}_"
        name = env.text(prefix + "PROVIDER") or ("default" if index == 0 else None)
        if name is None:
            raise ConfigError(f"{prefix}PROVIDER must name provider {index}")
        if not _PROVIDER_NAME.fullmatch(name):
            raise ConfigError(f"{prefix}PROVIDER must match [A-Za-z0-9_-]+, got {name!r}")
        if any(p.name == name for p in providers):
            raise ConfigError(f"{prefix}PROVIDER repeats the provider name {name!r}")
        providers.append(
            OidcProvider(
                name=name,
                issuer=env.text(prefix + "ISSUER") or DEV_ISSUER,
                client_id=env.text(prefix + "CLIENT_ID") or DEV_CLIENT_ID,
                client_secret=env.text(prefix + "CLIENT_SECRET"),
                redirect_uri=env.text(prefix + "REDIRECT_URI")
                or f"http://localhost:8080/auth/{name}/callback",
                post_login_redirect=env.text(prefix + "POST_LOGIN_REDIRECT") or "/",
                post_logout_redirect=env.text(prefix + "POST_LOGOUT_REDIRECT") or "/",
            )
        )
    return tuple(providers)


_PUSH_SUBJECT = re.compile(r"mailto:[^@\s]+@[^@\s]+|https://[^/\s]+(/\S*)?", re.IGNORECASE)


def _web_push(env: _Env) -> WebPushSettings | None:
    """The VAPID key and subject; None when no key is set (push disabled)."""
    key = env.text("WEB_PUSH_VAPID_PRIVATE_KEY")
    subject = env.text("WEB_PUSH_SUBJECT")
    if key is None:
        return None
    if subject is None:
        raise ConfigError("WEB_PUSH_SUBJECT is required when WEB_PUSH_VAPID_PRIVATE_KEY is set: a "
                          "mailto: or https: URL where push services can reach the operators")
    if not _PUSH_SUBJECT.fullmatch(subject):
        raise ConfigError(f"WEB_PUSH_SUBJECT must be a mailto: address or an https: URL, got {subject!r}")
    return WebPushSettings(vapid_private_key=key, subject=subject)
