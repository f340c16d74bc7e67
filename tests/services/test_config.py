"""Settings from the environment: the README's defaults, overrides, and errors naming the variable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.config import ConfigError, Database, Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults_are_the_readmes():
    settings = Settings.from_env({})
    assert settings.database_url is None
    assert settings.redis_url is None
    assert settings.redis_key_prefix == "tavolo"
    assert settings.game_ttl_seconds == 86400
    assert settings.hand_ack_timeout_seconds == 30
    assert settings.turn_timeout_seconds == 30
    assert settings.deadline_heartbeat_ms == 30000
    assert settings.deadline_lease_ms == 30000
    assert settings.dummy_game is False
    assert settings.log_level == "INFO"
    assert settings.logging_config is None
    assert settings.cors.enabled is False
    assert settings.cors.allow_methods == ("GET",)
    assert settings.cors.allow_credentials is False
    assert settings.cors.max_age == 600
    assert settings.telemetry.enabled is False
    assert settings.telemetry.service_name == "tavolo"
    assert settings.telemetry.excluded_paths == ("/api/health",)
    assert settings.telemetry.metric_export_interval_ms is None   # the SDK's own default
    assert settings.telemetry.metrics_poll_interval_s == 15
    assert settings.telemetry.metrics_port == 9464
    assert settings.telemetry.exporting is False and settings.telemetry.scraped is True
    assert settings.log_format == "text"
    assert (settings.app_host, settings.app_port) == ("0.0.0.0", 8080)
    assert settings.static_dir == "web/dist"
    assert settings.lobby_addr == "127.0.0.1:50051"
    assert settings.game_addr == "127.0.0.1:50052"
    assert settings.deadlines_addr == "127.0.0.1:50053"
    assert settings.stats_addr == "127.0.0.1:50054"
    assert settings.forwarded_allow_ips == ("127.0.0.1",)
    assert settings.log_retention_days is None  # logs are kept whole


def _readme_defaults() -> dict[str, str]:
    """Variable -> its Default cell in the README's table (split where a row names several)."""
    defaults = {}
    for line in README.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"[A-Z][A-Z0-9_<>n /]+", cells[0]):
            continue
        names = [n.strip() for n in cells[0].split("/")]
        values = [v.strip() for v in cells[1].split(" / ")]
        if len(values) == len(names) > 1:
            values = [values[0]] + [values[0].rsplit(":", 1)[0] + v if v.startswith(":") else v
                                    for v in values[1:]]
        else:
            values = values * len(names)
        defaults.update(zip(names, values))
    return defaults


_DEFAULT_OF = {
    "DATABASE_URL": lambda s: s.database_url, "REDIS_URL": lambda s: s.redis_url,
    "DATABASE_STATEMENT_CACHE_SIZE": lambda s: s.database_statement_cache_size,
    "REDIS_KEY_PREFIX": lambda s: s.redis_key_prefix,
    "REDIS_SENTINELS": lambda s: s.redis_sentinels,
    "REDIS_SENTINEL_SERVICE": lambda s: s.redis_sentinel_service,
    "STATS_CURSOR_SECRET": lambda s: s.stats_cursor_secret,
    "GAME_TTL_SECONDS": lambda s: s.game_ttl_seconds,
    "HAND_ACK_TIMEOUT_SECONDS": lambda s: s.hand_ack_timeout_seconds,
    "TURN_TIMEOUT_SECONDS": lambda s: s.turn_timeout_seconds,
    "ENTROPY_TIMEOUT_SECONDS": lambda s: s.entropy_timeout_seconds,
    "DAILY_TURN_HOURS": lambda s: s.daily_turn_hours,
    "DEADLINE_HEARTBEAT_MS": lambda s: s.deadline_heartbeat_ms,
    "DEADLINE_LEASE_MS": lambda s: s.deadline_lease_ms, "DUMMY_GAME": lambda s: s.dummy_game,
    "LOG_LEVEL": lambda s: s.log_level, "LOGGING_CONFIG": lambda s: s.logging_config,
    "LOG_FORMAT": lambda s: s.log_format,
    "CORS_ALLOW_ORIGINS": lambda s: s.cors.allow_origins,
    "CORS_ALLOW_ORIGIN_REGEX": lambda s: s.cors.allow_origin_regex,
    "CORS_ALLOW_METHODS": lambda s: s.cors.allow_methods,
    "CORS_ALLOW_HEADERS": lambda s: s.cors.allow_headers,
    "CORS_ALLOW_CREDENTIALS": lambda s: s.cors.allow_credentials,
    "CORS_EXPOSE_HEADERS": lambda s: s.cors.expose_headers,
    "CORS_MAX_AGE": lambda s: s.cors.max_age, "OTEL_ENABLED": lambda s: s.telemetry.enabled,
    "OTEL_SERVICE_NAME": lambda s: s.telemetry.service_name,
    "OTEL_EXCLUDED_PATHS": lambda s: s.telemetry.excluded_paths,
    "OTEL_METRIC_EXPORT_INTERVAL_MILLIS": lambda s: s.telemetry.metric_export_interval_ms,
    "OTEL_METRICS_POLL_INTERVAL_SECONDS": lambda s: s.telemetry.metrics_poll_interval_s,
    "APP_HOST": lambda s: s.app_host, "APP_PORT": lambda s: s.app_port,
    "STATIC_DIR": lambda s: s.static_dir, "LOBBY_ADDR": lambda s: s.lobby_addr,
    "SHUTDOWN_DRAIN_SECONDS": lambda s: s.shutdown_drain_seconds,
    "GAME_ADDR": lambda s: s.game_addr, "DEADLINES_ADDR": lambda s: s.deadlines_addr,
    "STATS_ADDR": lambda s: s.stats_addr, "GAME_REPLICAS_ADDR": lambda s: s.game_replicas_addr,
    "FORWARDED_ALLOW_IPS": lambda s: s.forwarded_allow_ips,
    "RATE_LIMIT_ENABLED": lambda s: s.rate_limits.enabled,
    "RATE_LIMIT_LOGIN_PER_MINUTE": lambda s: s.rate_limits.login_per_minute,
    "RATE_LIMIT_LOGIN_BURST": lambda s: s.rate_limits.login_burst,
    "RATE_LIMIT_WRITES_PER_MINUTE": lambda s: s.rate_limits.writes_per_minute,
    "RATE_LIMIT_WRITES_BURST": lambda s: s.rate_limits.writes_burst,
    "RATE_LIMIT_WS_MESSAGES_PER_SECOND": lambda s: s.rate_limits.ws_messages_per_second,
    "RATE_LIMIT_WS_MESSAGES_BURST": lambda s: s.rate_limits.ws_messages_burst,
    "RATE_LIMIT_PER_IP_FACTOR": lambda s: s.rate_limits.per_ip_factor,
    "GRPC_MAX_CONNECTION_AGE_SECONDS": lambda s: s.grpc_max_connection_age_seconds,
}


def _as_readme_writes_it(value) -> str:
    if value is None or value == ():
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_the_settings_defaults_are_the_readme_tables():
    """Read from the README itself, so that the two cannot drift apart."""
    documented, settings = _readme_defaults(), Settings.from_env({})
    assert set(_DEFAULT_OF) <= set(documented)
    for name, default_of in _DEFAULT_OF.items():
        assert _as_readme_writes_it(default_of(settings)) == documented[name], name


def test_the_default_provider_is_the_development_idp():
    (provider,) = Settings.from_env({}).oidc_providers
    assert provider.name == "default"
    assert provider.issuer == "http://localhost:8180/tavolo"
    assert provider.client_id == "tavolo"
    assert provider.client_secret is None
    assert provider.redirect_uri == "http://localhost:8080/auth/default/callback"
    assert provider.post_login_redirect == provider.post_logout_redirect == "/"


def test_overrides():
    settings = Settings.from_env({
        "REDIS_URL": "redis://cache:6379/2",
        "GAME_TTL_SECONDS": "60",
        "TURN_TIMEOUT_SECONDS": "0.5",
        "LOG_LEVEL": "debug",
        "CORS_ALLOW_ORIGINS": "https://a.example, https://b.example",
        "CORS_ALLOW_CREDENTIALS": "yes",
        "CORS_ALLOW_ORIGIN_REGEX": r"https://.*\.example",
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc, x=1",
        "OTEL_METRIC_EXPORT_INTERVAL_MILLIS": "5000",
        "METRICS_PORT": "0",
        "LOG_FORMAT": "JSON",
        "APP_PORT": "9000",
        "GAME_ADDR": "game.internal:6000",
        "GAME_REPLICAS_ADDR": "dns:///game-replicas.internal:6000",
        "DUMMY_GAME": "on",
        "LOG_RETENTION_DAYS": "90",
    })
    assert settings.redis_url == "redis://cache:6379/2"
    assert settings.game_ttl_seconds == 60
    assert settings.turn_timeout_seconds == 0.5
    assert settings.log_level == "DEBUG"
    assert settings.cors.allow_origins == ("https://a.example", "https://b.example")
    assert settings.cors.allow_credentials is True
    assert settings.cors.enabled
    assert settings.telemetry.metric_export_interval_ms == 5000
    assert settings.telemetry.metrics_port == 0 and not settings.telemetry.scraped
    assert settings.log_format == "json"
    assert settings.app_port == 9000
    assert settings.game_addr == "game.internal:6000"
    assert settings.game_replicas_addr == "dns:///game-replicas.internal:6000"
    assert settings.dummy_game is True
    assert settings.log_retention_days == 90


@pytest.mark.parametrize(("raw", "hours"), [("24", 24), ("0.0005", 0.0005), ("1.5", 1.5), ("72", 72)])
def test_daily_turn_hours_take_decimals(raw, hours):
    assert Settings.from_env({"DAILY_TURN_HOURS": raw}).daily_turn_hours == hours


def test_a_bad_daily_turn_hours_names_its_unit():
    with pytest.raises(ConfigError, match="DAILY_TURN_HOURS must be a positive number of hours"):
        Settings.from_env({"DAILY_TURN_HOURS": "-1"})


def test_database_url_wins_over_its_parts():
    settings = Settings.from_env({"DATABASE_URL": "postgresql://u@db/x", "DATABASE_HOST": "other"})
    assert settings.database_url == "postgresql://u@db/x"


def test_without_a_database_there_is_nothing_to_connect_to():
    assert Settings.from_env({}).database is None


def test_listens_and_reads_go_to_the_database_url_unless_told_otherwise():
    database = Settings.from_env({"DATABASE_URL": "postgresql://u@db/x"}).database
    assert database == Database(url="postgresql://u@db/x", listen_url="postgresql://u@db/x",
                                read_url="postgresql://u@db/x", statement_cache_size=100)
    assert not database.separate_reads


def test_behind_a_transaction_pooler_each_use_gets_its_own_url():
    database = Settings.from_env({
        "DATABASE_HOST": "pgbouncer", "DATABASE_PORT": "6432",
        "DATABASE_LISTEN_URL": "postgresql://tavolo@postgres-rw/tavolo",
        "DATABASE_READ_URL": "postgres://tavolo@postgres-ro/tavolo",
        "DATABASE_STATEMENT_CACHE_SIZE": "0",
    }).database
    assert database == Database(url="postgres://tavolo:password@pgbouncer:6432/tavolo",
                                listen_url="postgresql://tavolo@postgres-rw/tavolo",
                                read_url="postgres://tavolo@postgres-ro/tavolo",
                                statement_cache_size=0)
    assert database.separate_reads


def test_database_parts_build_a_dsn_leaving_out_an_empty_port():
    settings = Settings.from_env({"DATABASE_HOST": "db", "DATABASE_PASSWORD": "p@ss"})
    assert settings.database_url == "postgres://tavolo:p%40ss@db/tavolo"
    settings = Settings.from_env({"DATABASE_PORT": "6432", "DATABASE_OPTIONS": "ssl=require"})
    assert settings.database_url == "postgres://tavolo:password@localhost:6432/tavolo?ssl=require"


@pytest.mark.parametrize(("environ", "variable"), [
    ({"GAME_TTL_SECONDS": "soon"}, "GAME_TTL_SECONDS"),
    ({"GAME_TTL_SECONDS": "0"}, "GAME_TTL_SECONDS"),
    ({"TURN_TIMEOUT_SECONDS": "-1"}, "TURN_TIMEOUT_SECONDS"),
    ({"HAND_ACK_TIMEOUT_SECONDS": "nan"}, "HAND_ACK_TIMEOUT_SECONDS"),
    ({"ENTROPY_TIMEOUT_SECONDS": "0"}, "ENTROPY_TIMEOUT_SECONDS"),
    ({"DAILY_TURN_HOURS": "a day"}, "DAILY_TURN_HOURS"),
    ({"DAILY_TURN_HOURS": "0"}, "DAILY_TURN_HOURS"),
    ({"DAILY_TURN_HOURS": "-24"}, "DAILY_TURN_HOURS"),
    ({"DAILY_TURN_HOURS": "inf"}, "DAILY_TURN_HOURS"),
    ({"DAILY_TURN_HOURS": "0.0000001"}, "DAILY_TURN_HOURS"),  # under a millisecond
    ({"DEADLINE_HEARTBEAT_MS": "1.5"}, "DEADLINE_HEARTBEAT_MS"),
    ({"DEADLINE_LEASE_MS": "999"}, "DEADLINE_LEASE_MS"),  # fires get a third of it to answer
    ({"GRPC_MAX_CONNECTION_AGE_SECONDS": "-1"}, "GRPC_MAX_CONNECTION_AGE_SECONDS"),
    ({"GRPC_MAX_CONNECTION_AGE_SECONDS": "5m"}, "GRPC_MAX_CONNECTION_AGE_SECONDS"),
    ({"DUMMY_GAME": "sometimes"}, "DUMMY_GAME"),
    ({"LOG_RETENTION_DAYS": "0"}, "LOG_RETENTION_DAYS"),
    ({"LOG_RETENTION_DAYS": "1.5"}, "LOG_RETENTION_DAYS"),
    ({"LOG_RETENTION_DAYS": "a week"}, "LOG_RETENTION_DAYS"),
    ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
    ({"CORS_ALLOW_CREDENTIALS": "maybe"}, "CORS_ALLOW_CREDENTIALS"),
    ({"CORS_ALLOW_ORIGIN_REGEX": "(unclosed"}, "CORS_ALLOW_ORIGIN_REGEX"),
    ({"CORS_MAX_AGE": "-5"}, "CORS_MAX_AGE"),
    ({"OTEL_ENABLED": "2"}, "OTEL_ENABLED"),
    ({"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, "OTEL_EXPORTER_OTLP_HEADERS"),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT"),
    ({"METRICS_PORT": "65536"}, "METRICS_PORT"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"),
    ({"APP_PORT": "70000"}, "APP_PORT"),
    ({"SHUTDOWN_DRAIN_SECONDS": "-1"}, "SHUTDOWN_DRAIN_SECONDS"),
    ({"SHUTDOWN_DRAIN_SECONDS": "2.5"}, "SHUTDOWN_DRAIN_SECONDS"),  # whole seconds: the chart adds them up
    ({"GAME_ADDR": "nohostport"}, "GAME_ADDR"),
    ({"GAME_REPLICAS_ADDR": "game-replicas"}, "GAME_REPLICAS_ADDR"),
    ({"LOBBY_ADDR": "host:0"}, "LOBBY_ADDR"),
    ({"DATABASE_ENGINE": "sqlite"}, "DATABASE_ENGINE"),
    ({"DATABASE_URL": "sqlite:///x.db"}, "DATABASE_URL"),
    ({"DATABASE_PORT": "five"}, "DATABASE_PORT"),
    ({"DATABASE_PORT": "0"}, "DATABASE_PORT"),
    ({"DATABASE_URL": "postgresql://u:p@db:abc/tavolo"}, "DATABASE_URL"),
    ({"DATABASE_STATEMENT_CACHE_SIZE": "-1"}, "DATABASE_STATEMENT_CACHE_SIZE"),
    ({"DATABASE_STATEMENT_CACHE_SIZE": "off"}, "DATABASE_STATEMENT_CACHE_SIZE"),
    ({"DATABASE_URL": "postgresql://u@pgbouncer/t", "DATABASE_LISTEN_URL": "db:5432"},
     "DATABASE_LISTEN_URL"),
    ({"DATABASE_HOST": "db", "DATABASE_READ_URL": "postgresql://u@replica:port/t"},
     "DATABASE_READ_URL"),
    ({"DATABASE_LISTEN_URL": "postgresql://u@db/t"}, "DATABASE_LISTEN_URL"),  # no database
    ({"DATABASE_READ_URL": "postgresql://u@replica/t"}, "DATABASE_READ_URL"),  # no database
    ({"REDIS_URL": "localhost:6379"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://localhost:notaport/0"}, "REDIS_URL"),
    ({"REDIS_URL": "redis+cluster://cache:6379/1"}, "REDIS_URL"),  # a Cluster has database 0
    ({"REDIS_URL": "unix:///run/redis.sock", "REDIS_SENTINELS": "s:26379",
      "REDIS_SENTINEL_SERVICE": "m"}, "REDIS_URL"),
    ({"REDIS_URL": "redis+cluster://cache:6379", "REDIS_SENTINELS": "s:26379",
      "REDIS_SENTINEL_SERVICE": "m"}, "REDIS_URL"),
    ({"REDIS_SENTINELS": "s:26379"}, "REDIS_SENTINEL_SERVICE"),
    ({"REDIS_SENTINEL_SERVICE": "m"}, "REDIS_SENTINELS"),
    ({"REDIS_SENTINELS": "s:26379,sentinel-2", "REDIS_SENTINEL_SERVICE": "m"}, "REDIS_SENTINELS"),
    ({"REDIS_SENTINELS": "s:0", "REDIS_SENTINEL_SERVICE": "m"}, "REDIS_SENTINELS"),
    ({"REDIS_KEY_PREFIX": "tavolo{1}"}, "REDIS_KEY_PREFIX"),  # the keys' hash tags are braces
    ({"TURN_TIMEOUT_SECONDS": "0.0001"}, "TURN_TIMEOUT_SECONDS"),  # would round to 0 ms
    ({"FORWARDED_ALLOW_IPS": "proxy.internal"}, "FORWARDED_ALLOW_IPS"),  # uvicorn: never matches
    ({"FORWARDED_ALLOW_IPS": "10.0.0.1/8"}, "FORWARDED_ALLOW_IPS"),  # host bits: not a network
    ({"FORWARDED_ALLOW_IPS": "*, 10.0.0.1"}, "FORWARDED_ALLOW_IPS"),  # uvicorn: "*" a host name
    ({"RATE_LIMIT_ENABLED": "sometimes"}, "RATE_LIMIT_ENABLED"),
    ({"RATE_LIMIT_LOGIN_PER_MINUTE": "0"}, "RATE_LIMIT_LOGIN_PER_MINUTE"),  # would refuse all
    ({"RATE_LIMIT_LOGIN_BURST": "-1"}, "RATE_LIMIT_LOGIN_BURST"),
    ({"RATE_LIMIT_WRITES_PER_MINUTE": "2.5"}, "RATE_LIMIT_WRITES_PER_MINUTE"),
    ({"RATE_LIMIT_WRITES_BURST": "many"}, "RATE_LIMIT_WRITES_BURST"),
    ({"RATE_LIMIT_WS_MESSAGES_PER_SECOND": "0"}, "RATE_LIMIT_WS_MESSAGES_PER_SECOND"),
    ({"RATE_LIMIT_WS_MESSAGES_BURST": "0"}, "RATE_LIMIT_WS_MESSAGES_BURST"),
    ({"RATE_LIMIT_PER_IP_FACTOR": "0"}, "RATE_LIMIT_PER_IP_FACTOR"),
])
def test_bad_values_name_the_variable(environ, variable):
    with pytest.raises(ConfigError, match=re.escape(variable)):
        Settings.from_env(environ)


@pytest.mark.parametrize("credentials", ["true", "1", "yes", "on"])
def test_any_origin_with_credentials_is_a_start_up_error_naming_both_variables(credentials):
    """Starlette would answer every Origin with itself and allow the cookie: any site could
    call the API as the player."""
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"CORS_ALLOW_ORIGINS": "https://app.example, *",
                           "CORS_ALLOW_CREDENTIALS": credentials})
    assert "CORS_ALLOW_ORIGINS" in str(error.value) and "CORS_ALLOW_CREDENTIALS" in str(error.value)


def test_any_origin_without_credentials_and_named_origins_with_them_are_accepted():
    assert Settings.from_env({"CORS_ALLOW_ORIGINS": "*"}).cors.allow_origins == ("*",)
    named = Settings.from_env({"CORS_ALLOW_ORIGINS": "https://app.example",
                               "CORS_ALLOW_CREDENTIALS": "true"}).cors
    assert named.allow_credentials and named.allow_origins == ("https://app.example",)


def test_rate_limits_are_read_and_may_be_turned_off():
    limits = Settings.from_env({"RATE_LIMIT_ENABLED": "false", "RATE_LIMIT_LOGIN_PER_MINUTE": "5",
                                "RATE_LIMIT_LOGIN_BURST": "6", "RATE_LIMIT_WRITES_PER_MINUTE": "7",
                                "RATE_LIMIT_WRITES_BURST": "8", "RATE_LIMIT_WS_MESSAGES_PER_SECOND": "9",
                                "RATE_LIMIT_WS_MESSAGES_BURST": "11", "RATE_LIMIT_PER_IP_FACTOR": "1",
                                }).rate_limits
    assert (limits.enabled, limits.login_per_minute, limits.login_burst, limits.writes_per_minute,
            limits.writes_burst, limits.ws_messages_per_second, limits.ws_messages_burst,
            limits.per_ip_factor) == (False, 5, 6, 7, 8, 9, 11, 1)


def test_forwarded_allow_ips_takes_addresses_networks_or_star():
    settings = Settings.from_env({"FORWARDED_ALLOW_IPS": "10.0.0.0/8, 192.168.1.7,fd00::/8,::1"})
    assert settings.forwarded_allow_ips == ("10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1")
    assert Settings.from_env({"FORWARDED_ALLOW_IPS": " * "}).forwarded_allow_ips == ("*",)


def test_sentinels_name_the_master_and_redis_url_gives_the_rest():
    settings = Settings.from_env({"REDIS_SENTINELS": "sentinel-0:26379, [fd00::7]:26380",
                                  "REDIS_SENTINEL_SERVICE": "mymaster"})
    assert settings.redis_sentinels == (("sentinel-0", 26379), ("fd00::7", 26380))
    assert (settings.redis_sentinel_service, settings.redis_url) == ("mymaster", "redis://")
    with_url = Settings.from_env({"REDIS_SENTINELS": "s:26379", "REDIS_SENTINEL_SERVICE": "m",
                                  "REDIS_URL": "rediss://:secret@ignored:6379/3"})
    assert with_url.redis_url == "rediss://:secret@ignored:6379/3"


def test_a_cluster_is_named_by_its_urls_scheme():
    for url in ("redis+cluster://:secret@cluster:6379/0", "rediss+cluster://cluster:6380"):
        assert Settings.from_env({"REDIS_URL": url}).redis_url == url


def test_a_bad_url_error_never_shows_the_password():
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"DATABASE_URL": "postgresql://u:hunter2@db:port/tavolo"})
    assert "hunter2" not in str(error.value)


def test_with_a_database_url_the_parts_are_ignored_the_engine_too():
    settings = Settings.from_env({"DATABASE_URL": "postgresql://u:p@db/t", "DATABASE_ENGINE": "x",
                                  "DATABASE_HOST": "elsewhere"})
    assert settings.database_url == "postgresql://u:p@db/t"


def test_the_stats_cursor_secret_is_unset_by_default_and_at_least_16_characters():
    assert Settings.from_env({}).stats_cursor_secret is None
    assert Settings.from_env({"STATS_CURSOR_SECRET": ""}).stats_cursor_secret is None
    key = "0123456789abcdef"
    settings = Settings.from_env({"STATS_CURSOR_SECRET": key})
    assert settings.stats_cursor_secret == key
    assert key not in repr(settings)
    with pytest.raises(ConfigError, match="STATS_CURSOR_SECRET") as error:
        Settings.from_env({"STATS_CURSOR_SECRET": "too-short-key"})
    assert "too-short-key" not in str(error.value)


def test_several_providers_in_configuration_order():
    settings = Settings.from_env({
        "OIDC_0_PROVIDER": "google", "OIDC_0_ISSUER": "https://accounts.google.com",
        "OIDC_0_CLIENT_ID": "g", "OIDC_0_CLIENT_SECRET": "s",
        "OIDC_1_PROVIDER": "corp", "OIDC_1_ISSUER": "https://sso.corp.example/realms/x",
        "OIDC_1_POST_LOGIN_REDIRECT": "/lobby",
    })
    assert [p.name for p in settings.oidc_providers] == ["google", "corp"]
    google, corp = settings.oidc_providers
    assert google.client_secret == "s"
    assert corp.redirect_uri == "http://localhost:8080/auth/corp/callback"
    assert corp.post_login_redirect == "/lobby"
    assert settings.provider("corp") is corp


@pytest.mark.parametrize(("environ", "message"), [
    ({"OIDC_0_PROVIDER": "a", "OIDC_2_PROVIDER": "c"}, "OIDC_1_"),
    ({"OIDC_1_PROVIDER": "b"}, "OIDC_0_"),
    ({"OIDC_0_PROVIDER": "a", "OIDC_1_PROVIDER": "a"}, "OIDC_1_PROVIDER"),
    ({"OIDC_0_PROVIDER": "bad name"}, "OIDC_0_PROVIDER"),
    ({"OIDC_0_PROVIDER": "a", "OIDC_1_ISSUER": "https://x"}, "OIDC_1_PROVIDER"),
    ({"OIDC_0_CLIENTID": "x"}, "OIDC_0_CLIENTID"),
])
def test_bad_provider_lists_are_start_up_errors(environ, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.from_env(environ)


def _readme_variables() -> set[str]:
    names = set()
    for line in README.read_text().splitlines():
        match = re.match(r"\| ([A-Z][A-Z0-9_<>n /]+?) \|", line)
        if match and match.group(1) != "Variable":
            names.update(name.strip() for name in match.group(1).split("/"))
    return names


def test_every_readme_variable_is_read_by_the_settings():
    source = (Path(__file__).resolve().parents[2] / "services" / "config.py").read_text()
    variables = _readme_variables()
    assert len(variables) > 40
    for name in variables:
        if name.startswith("OIDC_<n>_"):
            assert f'"{name.removeprefix("OIDC_<n>_")}"' in source, name
        elif name in ("DATABASE_ENGINE", "DATABASE_HOST", "DATABASE_PORT", "DATABASE_NAME",
                      "DATABASE_USER", "DATABASE_PASSWORD", "DATABASE_OPTIONS"):
            assert f'"{name.removeprefix("DATABASE_")}"' in source, name
        else:
            assert f'"{name}"' in source, name
