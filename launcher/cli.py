"""The ``tavolo`` command: serve one component, run the whole stack, migrate, backfill ratings."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.metadata
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from services.components import Component
from services.config import ConfigError, Settings
from services.observability.logs import configure_logging
from services.observability.telemetry import CannotServeMetrics
from services.rpc.server import CannotListen
from services.stores import StoreUnreachable, when_reachable

# Each component module offers ``async def run(settings) -> None``.
COMPONENTS = {component: f"{component}.server" for component in Component}
DEV_IDP = "devtools.dev_idp"
STACK = (Component.GAME, Component.DEADLINES, Component.STATS, Component.BOTS, Component.LOBBY,
         Component.GATEWAY)

log = logging.getLogger("launcher.cli")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        settings = Settings.from_env()
        configure_logging(settings, args.command if args.command != "serve" else args.component)
        return args.handler(settings, args)
    except ConfigError as error:
        print(f"tavolo: configuration error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def version() -> str:
    """The installed distribution's version: pyproject.toml's, the one place it is set."""
    try:
        return importlib.metadata.version("tavolo")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout never installed
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tavolo", description=__doc__)
    parser.add_argument("--version", action="version", version=f"tavolo {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve one component")
    serve.add_argument("component", choices=sorted(COMPONENTS))
    serve.set_defaults(handler=_serve)

    run = commands.add_parser("run", help="the whole stack on this machine, one process each")
    run.add_argument("--no-idp", action="store_true",
                     help="do not start the development OIDC provider")
    run.set_defaults(handler=_run)

    idp = commands.add_parser("dev-idp", help="the development OIDC provider (not for production)")
    idp.add_argument("--port", type=int, default=8180)
    idp.add_argument("--issuer", default="http://localhost:8180/tavolo",
                     help="the issuer URL it announces (must match where it is reached)")
    idp.add_argument("--host", default=None,
                     help="the address it listens on (default: 127.0.0.1 for a local issuer, "
                          "else every interface; in a container, 0.0.0.0)")
    idp.set_defaults(handler=_dev_idp)

    migrate = commands.add_parser("migrate", help="apply the Postgres migrations")
    migrate.add_argument("--status", action="store_true",
                         help="apply nothing: list every migration as applied, pending, edited "
                              "since applied or unknown to this release (exit 0 up to date, 3 "
                              "pending, 1 edited or unknown)")
    migrate.set_defaults(handler=_migrate)

    backfill = commands.add_parser("backfill-elo",
                                   help="recompute every rating from the match history")
    backfill.set_defaults(handler=_backfill)
    return parser


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    module = importlib.import_module(COMPONENTS[args.component])
    from services.migrations import EditedMigration

    try:
        asyncio.run(module.run(settings))
    except (StoreUnreachable, CannotListen, CannotServeMetrics, EditedMigration) as error:  # an operator's problem
        print(f"tavolo serve {args.component}: {error}", file=sys.stderr)
        return 1
    return 0


def _dev_idp(settings: Settings, args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module(DEV_IDP)
    except ModuleNotFoundError:
        # devtools/ is not in the production image: production logs in with a real provider.
        # The evaluation image (the Dockerfile's dev-oidc stage) adds it.
        print("tavolo dev-idp: the development provider is not installed here (it runs from a "
              "source checkout, or the tavolo-dev-oidc image)", file=sys.stderr)
        return 3
    module.serve(port=args.port, issuer=args.issuer, host=args.host)
    return 0


def _migrate(settings: Settings, args: argparse.Namespace) -> int:
    from services.migrations import EditedMigration, migrate

    database = settings.database
    if database is None:
        print("tavolo migrate: no database configured (set DATABASE_URL or DATABASE_*)",
              file=sys.stderr)
        return 2
    if getattr(args, "status", False):
        return _migration_status(database.url, database.statement_cache_size)
    try:
        applied = asyncio.run(when_reachable("Postgres", lambda: migrate(
            database.url, statement_cache_size=database.statement_cache_size)))
    except (StoreUnreachable, EditedMigration) as error:
        print(f"tavolo migrate: {error}", file=sys.stderr)
        return 1
    print(f"applied {len(applied)} migration(s)" + "".join(f"\n  {n}" for n in applied))
    return 0


def _migration_status(url: str, statement_cache_size: int) -> int:
    from services.migrations import State, status

    try:
        found = asyncio.run(when_reachable("Postgres", lambda: status(
            url, statement_cache_size=statement_cache_size)))
    except StoreUnreachable as error:
        print(f"tavolo migrate: {error}", file=sys.stderr)
        return 1
    rows = [("COMPONENT", "MIGRATION", "STATE", "APPLIED AT")]
    rows += [(m.component, m.name, m.state.value,
              m.applied_at.isoformat(timespec="seconds") if m.applied_at else "") for m in found]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        print(("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3]).rstrip())
    counts = {state: sum(m.state is state for m in found) for state in State}
    print(", ".join(f"{count} {state.value}" for state, count in counts.items()))
    if counts[State.EDITED] or counts[State.UNKNOWN]:
        return 1
    return 3 if counts[State.PENDING] else 0


def _backfill(settings: Settings, args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module("stats.backfill")
    except ModuleNotFoundError:
        print("tavolo backfill-elo: not yet (the stats service is not built)", file=sys.stderr)
        return 3
    return module.main(settings)


def _local_dev_idp(settings: Settings) -> tuple[int, str] | None:
    """Where `tavolo run` starts the development provider: at the issuer of a provider that
    points at this machine (by default, ``default`` at http://localhost:8180/tavolo)."""
    for provider in settings.oidc_providers:
        parts = urlsplit(provider.issuer)
        if parts.scheme == "http" and parts.hostname in ("localhost", "127.0.0.1") and parts.port:
            return parts.port, provider.issuer
    return None


# `tavolo run` puts six processes on one machine: each serves its metrics on a port of its own,
# counted up from METRICS_PORT in this order (9464 gateway, 9465 lobby, 9466 game, 9467
# deadlines, 9468 stats, 9469 bots).
_METRICS_OFFSETS: dict[str, int] = {Component.GATEWAY: 0, Component.LOBBY: 1, Component.GAME: 2,
                                    Component.DEADLINES: 3, Component.STATS: 4, Component.BOTS: 5}


# What `tavolo run` keeps between runs on this machine, under the folder it runs in (the
# repository, for `make run`): git-ignored.
STATE_DIR = Path(".state")
DEV_VAPID_KEY = STATE_DIR / "vapid_private_key.pem"
DEV_PUSH_SUBJECT = "mailto:dev@localhost"


def _dev_web_push() -> dict[str, str]:
    """A development VAPID key for `tavolo run` when none is set: made once and kept (browsers'
    subscriptions are bound to it, so a new key each run would orphan them)."""
    if not DEV_VAPID_KEY.exists():
        STATE_DIR.mkdir(exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        descriptor = os.open(DEV_VAPID_KEY, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        log.info("made a development VAPID key for Web Push: %s", DEV_VAPID_KEY)
    return {"WEB_PUSH_VAPID_PRIVATE_KEY": DEV_VAPID_KEY.read_text(),
            "WEB_PUSH_SUBJECT": os.environ.get("WEB_PUSH_SUBJECT") or DEV_PUSH_SUBJECT}


def _child_env(settings: Settings, component: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = os.environ.copy()
    env.update(extra or {})
    base = settings.telemetry.metrics_port
    if base and component in _METRICS_OFFSETS:
        env["METRICS_PORT"] = str(min(65535, base + _METRICS_OFFSETS[component]))
    return env


def _run(settings: Settings, args: argparse.Namespace) -> int:
    """Start every component as a child process; any signal or a child's death stops them all."""
    if settings.database_url is not None:
        _migrate(settings, args)
    commands = [[sys.executable, "-m", "launcher.cli", "serve", name] for name in STACK]
    extra = _dev_web_push() if settings.web_push is None else {}
    idp = _local_dev_idp(settings)
    if idp is not None and not args.no_idp:
        port, issuer = idp
        commands.insert(0, [sys.executable, "-m", "launcher.cli", "dev-idp", "--port", str(port),
                            "--issuer", issuer])
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Children get their own process group: a terminal's Ctrl-C reaches only this parent, which
    # then stops them in order and waits, so nothing is left behind.
    children = [subprocess.Popen(command, env=_child_env(settings, command[-1], extra),
                                 start_new_session=True)
                for command in commands]
    log.info("started %d processes; gateway on http://%s:%d", len(children),
             settings.app_host, settings.app_port)
    status = 0
    while not stopping:
        dead = [(command, child) for command, child in zip(commands, children, strict=True)
                if child.poll() is not None]
        if dead:
            command, child = dead[0]
            log.error("%s exited with %s; stopping the stack", command[-1], child.returncode)
            status = 1
            break
        time.sleep(0.2)
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    log.info("stack stopped")
    return status


if __name__ == "__main__":
    sys.exit(main())
