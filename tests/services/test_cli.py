"""The `tavolo` command: its help, configuration errors, and `tavolo run` starting and stopping everything."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from gateway.push_sender import load_vapid_key
from launcher.cli import STACK, _child_env, _dev_web_push
from services.config import Settings, TelemetrySettings
from testing.processes import free_address, free_port
from testing.servers import ADMIN_DSN
from testing.stack import SERVICES, Stack


def _tavolo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "launcher.cli", *args], capture_output=True,
                          text=True, env=env or os.environ.copy(), timeout=60)


def test_help_lists_every_command():
    result = _tavolo("--help")
    assert result.returncode == 0
    for command in ("serve", "run", "dev-idp", "migrate", "backfill-elo"):
        assert command in result.stdout


def test_version_is_the_installed_distributions_and_needs_no_settings():
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    result = _tavolo("--version", env={**os.environ, "GAME_TTL_SECONDS": "soon"})  # read no setting
    assert (result.returncode, result.stdout) == (0, f"tavolo {project['version']}\n")


def test_a_bad_setting_stops_the_command_naming_the_variable():
    result = _tavolo("serve", "lobby", env={**os.environ, "GAME_TTL_SECONDS": "soon"})
    assert result.returncode == 2
    assert "GAME_TTL_SECONDS" in result.stderr


def test_an_unfit_callers_file_stops_a_service_naming_the_variable_and_the_fault(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    callers = tmp_path / "callers.yaml"
    callers.write_text("callers:\n  - name: reporting\n")
    result = _tavolo("serve", "lobby", env={**env, "LOBBY_ADDR": free_address(),
                                            "METRICS_PORT": "0",
                                            "GRPC_CALLERS_FILE": str(callers)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert ("tavolo: configuration error: GRPC_CALLERS_FILE: caller 'reporting': give "
            "token_sha256, token_files, certificate or some of them") in result.stderr


def test_migrate_without_a_database_says_so():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    result = _tavolo("migrate", env=env)
    assert result.returncode == 2 and "DATABASE_URL" in result.stderr


def test_run_starts_every_component_and_a_signal_stops_them_all():
    stack = Stack()  # only for its free ports and environment
    process = subprocess.Popen([sys.executable, "-m", "launcher.cli", "run"], env=stack.env)
    stack.processes["run"] = process
    try:
        deadline = time.monotonic() + 30
        for name in SERVICES:
            stack.wait_serving(name, deadline)
        stack._wait_http(f"{stack.gateway_url}/api/health", deadline)
        assert httpx.get(f"{stack.gateway_url}/api/health").json() == {"status": "ok"}
        discovery = httpx.get(f"{stack.issuer}/.well-known/openid-configuration").json()
        assert discovery["issuer"] == stack.issuer
        children = _children(process.pid)
        assert len(children) == 7  # five services, the gateway, the development provider
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    time.sleep(0.2)
    assert [pid for pid in children if _alive(pid)] == []


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(line) for line in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_an_address_that_cannot_be_bound_is_one_line_naming_the_variable():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    result = _tavolo("serve", "deadlines", env={**env, "DEADLINES_ADDR": "192.0.2.1:50053",
                                                "METRICS_PORT": "0"})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "tavolo serve deadlines: cannot listen on 192.0.2.1:50053 (DEADLINES_ADDR)" in result.stderr


def test_a_health_port_that_cannot_be_bound_is_one_line_naming_the_variable():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _tavolo("serve", "lobby", env={**env, "LOBBY_ADDR": free_address(),
                                                "METRICS_PORT": "0",
                                                "GRPC_HEALTH_PORT": str(port)})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"cannot listen on 127.0.0.1:{port} (GRPC_HEALTH_PORT)" in result.stderr


@pytest.mark.parametrize("component", ["stats", "gateway"])
def test_a_metrics_port_that_cannot_be_bound_is_one_line_naming_the_variable(component):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _tavolo("serve", component, env={
            **env, "STATS_ADDR": free_address(), "APP_HOST": "127.0.0.1",
            "APP_PORT": str(free_port()), "METRICS_PORT": str(port)})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"tavolo serve {component}: cannot serve metrics on 127.0.0.1:{port} (METRICS_PORT)" \
        in result.stderr


def test_run_gives_every_process_a_metrics_port_of_its_own():
    ports = {component: _child_env(Settings(telemetry=TelemetrySettings(metrics_port=9464)),
                                   component)["METRICS_PORT"] for component in STACK}
    assert ports == {"gateway": "9464", "lobby": "9465", "game": "9466", "deadlines": "9467",
                     "stats": "9468", "bots": "9469"}
    off = Settings(telemetry=TelemetrySettings(metrics_port=0))
    assert {_child_env(off, component).get("METRICS_PORT", "0") for component in STACK} == {"0"}


def test_migrate_against_a_refusing_database_is_one_line():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    missing = ADMIN_DSN.rsplit("/", 1)[0] + "/tavolo_no_such_database"
    result = _tavolo("migrate", env={**env, "DATABASE_URL": missing})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "tavolo migrate: Postgres refused the connection" in result.stderr


def test_run_makes_a_development_vapid_key_once_and_keeps_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WEB_PUSH_SUBJECT", raising=False)
    first = _dev_web_push()
    key_file = tmp_path / ".state" / "vapid_private_key.pem"
    assert key_file.stat().st_mode & 0o077 == 0  # the owner's alone
    assert first == {"WEB_PUSH_VAPID_PRIVATE_KEY": key_file.read_text(),
                     "WEB_PUSH_SUBJECT": "mailto:dev@localhost"}
    assert _dev_web_push() == first  # kept: the browsers' subscriptions stay valid across runs
    # The children read it as any setting, and the gateway can sign with it.
    settings = Settings.from_env(_child_env(Settings(), "gateway", first))
    assert settings.web_push is not None
    assert load_vapid_key(settings.web_push).public_key
