"""How a tavolo process proves itself on gRPC connections, both ways (docs/grpc-auth.md).

Serving: TLS with ``GRPC_TLS_CERT_FILE``/``KEY_FILE``, mutual when ``GRPC_TLS_CA_FILE`` is set,
and :class:`~services.rpc.callers.CallerCheck` when ``GRPC_CALLERS_FILE`` is. Calling: TLS to the
services when a CA or a certificate is set, and the bearer token of ``GRPC_TOKEN_FILE`` with
every call (services.rpc.client).
"""

from __future__ import annotations

import ipaddress
import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import grpc

from services.config import ConfigError, GrpcSecurity
from services.rpc.callers import CallerCheck, Callers

log = logging.getLogger(__name__)


def _read(variable: str, path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ConfigError(f"{variable}: cannot read {path}: {error.strerror}") from None


@dataclass(frozen=True)
class ClientCredentials:
    """What this process shows the services it calls: TLS (verifying them with the CA,
    presenting its certificate) and its bearer token. Empty: plaintext, no token."""

    channel: grpc.ChannelCredentials | None = None
    server_name: str | None = None  # overrides the host of the dialled address in the check
    token: str | None = field(default=None, repr=False)
    # (service, name): what for_service puts in server_name's place (<SERVICE>_TLS_SERVER_NAME)
    service_names: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, security: GrpcSecurity) -> ClientCredentials:
        channel = None
        if security.calls_tls:
            channel = grpc.ssl_channel_credentials(
                root_certificates=(_read("GRPC_TLS_CA_FILE", security.tls_ca_file)
                                   if security.tls_ca_file else None),
                private_key=(_read("GRPC_TLS_KEY_FILE", security.tls_key_file)
                             if security.tls_key_file else None),
                certificate_chain=(_read("GRPC_TLS_CERT_FILE", security.tls_cert_file)
                                   if security.tls_cert_file else None),
            )
        token = None
        if security.token_file is not None:
            token = _read("GRPC_TOKEN_FILE", security.token_file).decode().strip()
            if not token or any(c.isspace() or not c.isprintable() for c in token):
                raise ConfigError(f"GRPC_TOKEN_FILE: {security.token_file} must hold one "
                                  "token: printable, without spaces")
        return cls(channel, security.tls_server_name, token, security.tls_service_names)

    def for_service(self, service: str) -> ClientCredentials:
        """These credentials for calls to ``service`` (lobby, game, deadlines, stats, bots):
        its certificate is checked against the name set for it when there is one. The chart's
        callers dial a headless Service and expect the name of the service's other Service,
        which its certificate carries (docs/grpc-auth.md)."""
        name = dict(self.service_names).get(service)
        return self if name is None else replace(self, server_name=name)

    def channel_options(self) -> tuple[tuple[str, object], ...]:
        if self.channel is not None and self.server_name is not None:
            return (("grpc.ssl_target_name_override", self.server_name),)
        return ()

    def call_metadata(self) -> tuple[tuple[str, str], ...] | None:
        """What each call carries: the bearer token, if any (services.rpc.client sends it)."""
        return None if self.token is None else (("authorization", f"Bearer {self.token}"),)


@dataclass
class ServerSecurity:
    """How a service listens: its port's credentials (None: plaintext) and its caller check
    (None: every caller is welcome)."""

    credentials: grpc.ServerCredentials | None
    caller_check: CallerCheck | None
    mutual_tls: bool = False  # callers must show a certificate the CA signed

    @classmethod
    def of(cls, security: GrpcSecurity) -> ServerSecurity:
        if security.tls_ca_file is not None and not security.serves_tls:
            raise ConfigError("GRPC_TLS_CA_FILE on a gRPC service needs GRPC_TLS_CERT_FILE and "
                              "GRPC_TLS_KEY_FILE: it serves TLS to require callers' "
                              "certificates")
        credentials = _server_credentials(security) if security.serves_tls else None
        check = None
        if security.callers_file is not None:
            check = CallerCheck(Callers.load(security.callers_file),
                                certificates=security.tls_ca_file is not None)
        return cls(credentials, check, mutual_tls=security.tls_ca_file is not None)

    def describe(self) -> str:
        """For the start-up log line: how callers are checked."""
        transport = ("mutual TLS" if self.mutual_tls else "TLS") if self.credentials else \
            "plaintext"
        return f"{transport}, {'callers checked' if self.caller_check else 'any caller'}"

    def warn_if_open(self, service: str, address: str) -> None:
        """A start-up warning when anyone beyond this machine could call every method."""
        if self.caller_check is not None or self.mutual_tls or _loopback(address):
            return
        log.warning("%s service listens on %s without caller authentication: anyone who "
                    "reaches the port may call every method. Set GRPC_CALLERS_FILE "
                    "(docs/grpc-auth.md).", service, address)


def _loopback(address: str) -> bool:
    host = address.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _server_credentials(security: GrpcSecurity) -> grpc.ServerCredentials:
    """The certificate files, read again when they change (cert-manager renews them in place):
    each new connection gets the current ones, without a restart."""
    assert security.tls_cert_file is not None and security.tls_key_file is not None
    files = (security.tls_cert_file, security.tls_key_file, security.tls_ca_file)
    mutual = security.tls_ca_file is not None

    def configuration() -> Any:
        key = _read("GRPC_TLS_KEY_FILE", security.tls_key_file)  # type: ignore[arg-type]
        chain = _read("GRPC_TLS_CERT_FILE", security.tls_cert_file)  # type: ignore[arg-type]
        ca = _read("GRPC_TLS_CA_FILE", security.tls_ca_file) if mutual else None  # type: ignore[arg-type]
        return grpc.ssl_server_certificate_configuration([(key, chain)], root_certificates=ca)

    seen = [_stamps(files)]

    def fetch() -> Any:
        stamps = _stamps(files)
        if stamps == seen[0]:
            return None  # unchanged: gRPC keeps the current configuration
        try:
            renewed = configuration()
        except ConfigError as error:  # half-written during a renewal: keep the old ones
            log.warning("TLS certificate files changed but cannot be read yet: %s", error)
            return None
        seen[0] = stamps
        log.info("TLS certificate files changed: serving the new certificate")
        return renewed

    return grpc.dynamic_ssl_server_credentials(configuration(), fetch,
                                               require_client_authentication=mutual)


def _stamps(files: tuple[str | None, ...]) -> tuple[float, ...]:
    stamps = []
    for path in files:
        try:
            stamps.append(os.stat(path).st_mtime if path else 0.0)
        except OSError:
            stamps.append(-1.0)
    return tuple(stamps)
