"""Who may call a gRPC service (docs/grpc-auth.md): the callers file, tokens, client
certificates, the allow lists, over real sockets to a real lobby service."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
import socket
import ssl
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from lobby.client import LobbyClient
from lobby.server import run
from services.config import ConfigError, GrpcSecurity, Settings, TelemetrySettings
from services.rpc.callers import BUILT_IN_METHODS, READ_ONLY_METHODS, Callers
from services.rpc.errors import Reason, ServiceError
from services.rpc.transport_security import ClientCredentials
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from testing.certificates import CertificateAuthority
from testing.processes import free_port

TOKENS = {"gateway": "gateway-token-0123456789", "reporting": "reporting-token-0123456789",
          "ops": "ops-token-0123456789"}
MISSING_GAME = "00000000-0000-4000-8000-000000000000"


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _callers_file(folder: Path, extra: str = "") -> Path:
    path = folder / "callers.yaml"
    path.write_text(f"""callers:
  - name: gateway
    token_sha256: {_sha(TOKENS["gateway"])}
    certificate: tavolo-gateway
  - name: reporting
    token_sha256: {_sha(TOKENS["reporting"])}
  - name: ops
    token_sha256: {_sha(TOKENS["ops"])}
    methods: [tavolo.lobby.v1.LobbyService/*]
{extra}""")
    return path


@asynccontextmanager
async def _lobby(security: GrpcSecurity):
    """A lobby service in memory with ``security``; yields its address."""
    address = f"127.0.0.1:{free_port()}"
    settings = Settings(lobby_addr=address, game_addr=f"127.0.0.1:{free_port()}",
                        grpc_security=security, telemetry=TelemetrySettings(metrics_port=0))
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(run(settings, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    try:
        yield address
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def _get_game(address: str, credentials: ClientCredentials | None = None) -> ServiceError:
    """GetGame of a game that does not exist: NOT_FOUND once the call is let in."""
    async with LobbyClient(address, credentials=credentials) as client:
        with pytest.raises(ServiceError) as refused:
            await client.get_game(MISSING_GAME)
    return refused.value


def _error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return info


# -- the callers file ------------------------------------------------------------------------

@pytest.mark.parametrize("document, complaint", [
    ({"callers": [{"name": "x"}]}, "give token_sha256, token_files, certificate"),
    ({"callers": [{"name": "x", "token_sha256": ["a" * 64, "abc"]}]}, "64 hex digits"),
    ({"callers": [{"name": "x", "token_files": "/run/token"}]}, "token_files must be a list"),
    ({"callers": [{"name": "x", "token_sha256": "abc"}]}, "64 hex digits"),
    ({"callers": [{"name": "x", "certificate": "c", "role": "admin"}]}, "unknown key 'role'"),
    ({"callers": [{"name": "x y", "certificate": "c"}]}, "name must be"),
    ({"callers": [{"name": "x", "certificate": "c"}, {"name": "x", "certificate": "d"}]},
     "listed twice"),
    ({"callers": [{"name": "x", "certificate": "c"}, {"name": "y", "certificate": "c"}]},
     "same certificate name"),
    ({"callers": [{"name": "x", "certificate": "c", "methods": ["ListMatches"]}]},
     "is not '<package>.<Service>/<Method>'"),
    ({"callers": [{"name": "x", "certificate": "c",
                   "methods": ["tavolo.stats.v1.StatsService/ListMatch"]}]},
     "has no method 'ListMatch'"),
    ({"callers": [{"name": "x", "certificate": "c", "methods": ["tavolo.poker.v1.Poker/*"]}]},
     "no tavolo service is called 'tavolo.poker.v1.Poker'"),
    ({"callers": [{"name": "x", "certificate": "c", "methods": "*"}]}, "must be a list"),
    ({"users": []}, "one key, 'callers'"),
    ([], "one key, 'callers'"),
])
def test_an_unfit_callers_file_is_refused_naming_the_variable_and_the_fault(document, complaint):
    with pytest.raises(ConfigError, match="GRPC_CALLERS_FILE") as refused:
        Callers.parse(document)
    assert complaint in str(refused.value)


def test_a_callers_file_that_is_missing_or_not_yaml_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="GRPC_CALLERS_FILE: cannot read"):
        Callers.load(str(tmp_path / "absent.yaml"))
    (tmp_path / "bad.yaml").write_text("callers: [\n")
    with pytest.raises(ConfigError, match="is not YAML"):
        Callers.load(str(tmp_path / "bad.yaml"))


def test_default_allow_lists_built_in_callers_their_calls_and_others_read_only(tmp_path):
    callers = Callers.load(str(_callers_file(tmp_path)))
    gateway, reporting = callers.by_token(TOKENS["gateway"]), callers.by_token(TOKENS["reporting"])
    assert gateway is not None and reporting is not None
    assert gateway.may_call("/tavolo.game.v1.GameService/Act")
    assert not gateway.may_call("/tavolo.game.v1.GameService/FireDeadline")
    assert not gateway.may_call("/tavolo.deadlines.v1.DeadlineService/Schedule")
    assert reporting.may_call("/tavolo.stats.v1.StatsService/GetLeaderboard")
    assert not reporting.may_call("/tavolo.stats.v1.StatsService/EraseMember")
    assert not reporting.may_call("/tavolo.lobby.v1.LobbyService/GetGame")
    assert callers.by_token("not-a-known-token") is None
    assert callers.by_certificate(["stranger", "tavolo-gateway"]) is gateway
    # every built-in and default entry names a real method (the file's check applies to them)
    for methods in (*BUILT_IN_METHODS.values(), READ_ONLY_METHODS):
        Callers.parse({"callers": [{"name": "probe", "certificate": "c",
                                    "methods": list(methods)}]})


def test_tls_settings_that_cannot_work_are_refused():
    with pytest.raises(ConfigError, match="GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE go together"):
        Settings.from_env({"GRPC_TLS_CERT_FILE": "server.crt"})
    with pytest.raises(ConfigError, match="GRPC_TOKEN_FILE: cannot read"):
        ClientCredentials.of(GrpcSecurity(token_file="absent.token"))


# -- bearer tokens, over a socket ------------------------------------------------------------

@pytest.fixture
async def token_lobby(tmp_path):
    async with _lobby(GrpcSecurity(callers_file=str(_callers_file(tmp_path)))) as address:
        yield address


async def test_a_call_without_credentials_is_unauthenticated(token_lobby):
    error = await _get_game(token_lobby)
    assert error.reason is Reason.UNAUTHENTICATED and error.code is grpc.StatusCode.UNAUTHENTICATED
    assert "authorization: Bearer" in error.message


async def test_an_unknown_token_is_unauthenticated_and_never_echoed(token_lobby):
    error = await _get_game(token_lobby, ClientCredentials(token="guessed-token-123"))
    assert error.reason is Reason.UNAUTHENTICATED
    assert "guessed" not in error.message and not error.metadata


async def test_a_known_caller_passes_to_the_method_it_may_call(token_lobby):
    for caller in ("gateway", "ops"):
        error = await _get_game(token_lobby, ClientCredentials(token=TOKENS[caller]))
        assert error.reason is Reason.GAME_NOT_FOUND  # let in: the lobby itself answered


async def test_a_caller_outside_its_allow_list_is_denied_with_its_name_and_the_method(
        token_lobby):
    error = await _get_game(token_lobby, ClientCredentials(token=TOKENS["reporting"]))
    assert error.reason is Reason.METHOD_NOT_ALLOWED
    assert error.code is grpc.StatusCode.PERMISSION_DENIED
    assert error.metadata == {"caller": "reporting",
                              "method": "/tavolo.lobby.v1.LobbyService/GetGame"}


async def test_a_stream_carries_the_token_and_is_checked_like_a_call(token_lobby):
    async with LobbyClient(token_lobby, credentials=ClientCredentials(token=TOKENS["ops"])
                           ) as client:
        with pytest.raises(ServiceError) as let_in:
            async for _ in client.watch_game(MISSING_GAME):
                pass
    assert let_in.value.reason is Reason.GAME_NOT_FOUND
    async with grpc.aio.insecure_channel(token_lobby) as channel:
        stream = lobby_pb2_grpc.LobbyServiceStub(channel).WatchGame(
            lobby_pb2.WatchGameRequest(game_id=MISSING_GAME))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stream.read()
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert _error_info(refused.value).reason == "UNAUTHENTICATED"


async def test_health_needs_no_credentials_and_reflection_needs_a_caller(token_lobby):
    async with grpc.aio.insecure_channel(token_lobby) as channel:
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            async for _ in reflection.ServerReflectionInfo(iter([request])):
                pass
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        token = (("authorization", f"Bearer {TOKENS['reporting']}"),)
        answers = [answer async for answer in reflection.ServerReflectionInfo(
            iter([request]), metadata=token)]
    names = {service.name for service in answers[0].list_services_response.service}
    assert "tavolo.lobby.v1.LobbyService" in names


async def test_the_token_is_read_from_its_file(token_lobby, tmp_path):
    token_file = tmp_path / "gateway.token"
    token_file.write_text(f"  {TOKENS['gateway']}\n")
    credentials = ClientCredentials.of(GrpcSecurity(token_file=str(token_file)))
    assert (await _get_game(token_lobby, credentials)).reason is Reason.GAME_NOT_FOUND


def test_token_files_are_hashed_at_start_and_a_missing_one_is_skipped(tmp_path):
    (tmp_path / "gateway").write_text(TOKENS["gateway"] + "\n")
    callers = Callers.parse({"callers": [
        {"name": "gateway", "token_files": [str(tmp_path / "gateway"), str(tmp_path / "gateway.second")]},
        {"name": "game", "token_files": [str(tmp_path / "game")]},  # not a caller of this one
    ]})
    gateway = callers.by_token(TOKENS["gateway"])
    assert gateway is not None and gateway.name == "gateway"
    (tmp_path / "bad").write_text("two words")
    with pytest.raises(ConfigError, match="must hold one token"):
        Callers.parse({"callers": [{"name": "x", "token_files": [str(tmp_path / "bad")]}]})


async def test_a_rotation_with_two_tokens_keeps_every_call_working(tmp_path):
    """The runbook of docs/grpc-auth.md, "Rotating a token": at each step the pods of the last
    step and of this one run side by side, as in a rolling update, and every caller of either
    step is let in; at the end only the new token is."""
    tokens = tmp_path / "tokens"
    tokens.mkdir()
    current, second = tokens / "gateway", tokens / "gateway.second"
    callers = tmp_path / "callers.yaml"
    callers.write_text(f"""callers:
  - name: gateway
    token_files: [{current}, {second}]
""")
    old, new = "old-gateway-token-0123456789", "new-gateway-token-0123456789"
    security = GrpcSecurity(callers_file=str(callers))

    async def let_in(address: str, token: str) -> bool:
        error = await _get_game(address, ClientCredentials(token=token))
        return error.reason is Reason.GAME_NOT_FOUND

    current.write_text(old)
    async with _lobby(security) as before:
        # 1. the new token as the second: the services learn it, the callers still send the old
        second.write_text(new)
        async with _lobby(security) as step1:
            assert [await let_in(a, old) for a in (before, step1)] == [True, True]
            # 2. swap them: the callers send the new one, the services accept both
            current.write_text(new)
            second.write_text(old)
            async with _lobby(security) as step2:
                for address in (step1, step2):
                    assert await let_in(address, old) and await let_in(address, new)
                # 3. drop the second: only the new one is sent, and now only it is accepted
                second.unlink()
                async with _lobby(security) as step3:
                    for address in (step2, step3):
                        assert await let_in(address, new)
                    assert not await let_in(step3, old)


async def test_an_open_service_bound_beyond_loopback_warns_at_start(caplog):
    caplog.set_level(logging.WARNING, logger="services.rpc.transport_security")
    address = f"0.0.0.0:{free_port()}"
    settings = Settings(lobby_addr=address, telemetry=TelemetrySettings(metrics_port=0))
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(run(settings, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    stop.set()
    await asyncio.wait_for(task, 10)
    assert "without caller authentication" in caplog.text
    caplog.clear()
    async with _lobby(GrpcSecurity()):  # loopback: make run's default, no warning
        pass
    assert "without caller authentication" not in caplog.text


# -- mutual TLS ------------------------------------------------------------------------------

@pytest.fixture
def authority(tmp_path):
    return CertificateAuthority(tmp_path)


def _tls(authority: CertificateAuthority, common_name: str, **more: str) -> GrpcSecurity:
    cert, key = authority.issue(common_name)
    return GrpcSecurity(tls_cert_file=str(cert), tls_key_file=str(key),
                        tls_ca_file=str(authority.ca_file), **more)


async def test_mutual_tls_names_the_caller_by_its_certificate(authority, tmp_path):
    callers = str(_callers_file(tmp_path))
    health_port = free_port()
    server = replace(_tls(authority, "tavolo-lobby", callers_file=callers),
                     health_port=health_port)
    async with _lobby(server) as address:
        gateway = ClientCredentials.of(_tls(authority, "tavolo-gateway"))
        assert (await _get_game(address, gateway)).reason is Reason.GAME_NOT_FOUND
        # a certificate the CA signed, of nobody in the callers file: a token still names one
        stranger = ClientCredentials.of(_tls(authority, "stranger"))
        assert (await _get_game(address, stranger)).reason is Reason.UNAUTHENTICATED
        with_token = replace(stranger, token=TOKENS["reporting"])
        assert (await _get_game(address, with_token)).reason is Reason.METHOD_NOT_ALLOWED
        # plaintext, or TLS without a client certificate: refused in the handshake
        for credentials in (ClientCredentials(token=TOKENS["gateway"]), ClientCredentials.of(
                GrpcSecurity(tls_ca_file=str(authority.ca_file)))):
            assert (await _get_game(address, credentials)).reason is Reason.UNAVAILABLE
        # the kubelet's probe: health in the clear on its own port
        async with grpc.aio.insecure_channel(f"127.0.0.1:{health_port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="liveness"))
        assert health.status == health_pb2.HealthCheckResponse.SERVING


async def test_each_service_is_checked_against_the_name_set_for_it(authority):
    """The chart's callers dial a headless Service, a name the certificates do not hold: they
    check each service's certificate against <SERVICE>_TLS_SERVER_NAME instead (here the
    lobby is dialled as 127.0.0.1, which its certificate does not hold)."""
    name = "rel-tavolo-lobby.games.svc"
    cert, key = authority.issue("lobby", dns_names=(name,), ip_address=False)
    server = GrpcSecurity(tls_cert_file=str(cert), tls_key_file=str(key),
                          tls_ca_file=str(authority.ca_file))
    client_cert, client_key = authority.issue("gateway", file_name="gateway")
    environ = {"GRPC_TLS_CERT_FILE": str(client_cert), "GRPC_TLS_KEY_FILE": str(client_key),
               "GRPC_TLS_CA_FILE": str(authority.ca_file), "LOBBY_TLS_SERVER_NAME": name,
               "STATS_TLS_SERVER_NAME": "rel-tavolo-stats.games.svc"}
    async with _lobby(server) as address:
        credentials = ClientCredentials.of(Settings.from_env(environ).grpc_security)
        assert (await _get_game(address, credentials)).reason is Reason.UNAVAILABLE
        lobby = credentials.for_service("lobby")
        assert lobby.server_name == name
        assert (await _get_game(address, lobby)).reason is Reason.GAME_NOT_FOUND
        # another service's name is not the lobby's; GRPC_TLS_SERVER_NAME is the fallback
        stats = credentials.for_service("stats")
        assert (await _get_game(address, stats)).reason is Reason.UNAVAILABLE
        fallback = ClientCredentials.of(Settings.from_env(
            {**environ, "LOBBY_TLS_SERVER_NAME": "", "GRPC_TLS_SERVER_NAME": name}).grpc_security)
        assert (await _get_game(address, fallback.for_service("lobby"))).reason is \
            Reason.GAME_NOT_FOUND


async def test_a_certificate_from_another_authority_is_refused(authority, tmp_path):
    other = CertificateAuthority(tmp_path, name="another CA")
    async with _lobby(_tls(authority, "tavolo-lobby")) as address:
        intruder = ClientCredentials.of(replace(_tls(other, "tavolo-gateway"),
                                                tls_ca_file=str(authority.ca_file)))
        assert (await _get_game(address, intruder)).reason is Reason.UNAVAILABLE
        # without a callers file the CA is the allow list: any certificate it signed passes
        member = ClientCredentials.of(_tls(authority, "anyone"))
        assert (await _get_game(address, member)).reason is Reason.GAME_NOT_FOUND


async def test_a_renewed_server_certificate_is_served_without_a_restart(authority):
    security = _tls(authority, "tavolo-lobby")
    async with _lobby(security) as address:
        port = int(address.rpartition(":")[2])
        first = await asyncio.to_thread(_served_certificate, port, authority)
        renewed_cert, renewed_key = authority.issue("tavolo-lobby", file_name="renewed")
        for renewed, served in ((renewed_cert, security.tls_cert_file),
                                (renewed_key, security.tls_key_file)):
            await asyncio.to_thread(shutil.copyfile, renewed, str(served))
        second = await asyncio.to_thread(_served_certificate, port, authority)
        assert second != first and second == renewed_cert.read_text().strip()
        client = ClientCredentials.of(_tls(authority, "tavolo-gateway"))
        assert (await _get_game(address, client)).reason is Reason.GAME_NOT_FOUND


def _served_certificate(port: int, authority: CertificateAuthority) -> str:
    """The PEM certificate a new TLS connection to ``port`` is shown (h2, as gRPC's)."""
    context = ssl.create_default_context(cafile=str(authority.ca_file))
    context.set_alpn_protocols(["h2"])
    cert, key = authority.issue("probe", file_name="probe")
    context.load_cert_chain(cert, key)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, \
            context.wrap_socket(raw, server_hostname="localhost") as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return ssl.DER_cert_to_PEM_cert(der).strip()
