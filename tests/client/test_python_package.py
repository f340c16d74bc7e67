"""tavolo-api, the Python client distribution (clients/python): built from protos/ as `make client`
builds it, installed into a virtual environment of its own from the package index, where it
brings the generated stubs and no server dependency, and runs the quick start of
protos/README.md against the whole stack."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import grpc
import pytest

from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc
from testing.processes import free_port
from testing.stack import Stack

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "clients" / "python"
QUICKSTART = CLIENT / "examples" / "quickstart.py"
PROTO_FILES = sorted(path.relative_to(REPO / "protos").with_suffix("") for path in (REPO / "protos").rglob("*.proto"))
# What the generated code imports at run time, and what those bring; nothing of the server.
CLIENT_DISTRIBUTIONS = {"tavolo-api", "grpcio", "protobuf", "googleapis-common-protos", "typing-extensions"}
SERVER_DISTRIBUTIONS = {"asyncpg", "redis", "hiredis", "starlette", "uvicorn", "authlib", "joserfc", "httpx",
                        "jsonschema", "pyyaml", "websockets", "psutil", "grpcio-health-checking",
                        "grpcio-reflection", "grpcio-tools", "opentelemetry-api", "opentelemetry-sdk"}


OWN_ENVIRONMENT = {key: value for key, value in os.environ.items()
                   if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "TAVOLO_GRPC_TOKEN")}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built as `make client` builds it, from a copy of the sources (so that a
    concurrent `make client` and this build share no build folder)."""
    root = tmp_path_factory.mktemp("source")
    shutil.copytree(CLIENT, root / "clients" / "python", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    shutil.copytree(REPO / "protos", root / "protos")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(root / "clients" / "python")], check=True, capture_output=True)
    [built] = out.glob("tavolo_api-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel and its dependencies from the package index;
    nothing of the project's environment."""
    where = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
                   check=True, capture_output=True)
    return python


def run_in(python: Path, *args: str, cwd: Path, env: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    # Outside the repository (the current folder is on sys.path), and without the caller's
    # PYTHONPATH: only what the virtual environment has.
    return subprocess.run([python, *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={**OWN_ENVIRONMENT, **(env or {})})


@pytest.fixture(scope="module")
def stack():
    """Every component as its own process, in-memory stores, callers checked (the outside team's
    token reads history and ratings only); one finished match recorded."""
    running = Stack().start()
    try:
        record_a_match(running)
        yield running
    finally:
        running.stop()


def record_a_match(stack: Stack) -> None:
    """Four members sit at a lobby game; stats records the game's end, alice's team winning."""
    metadata = [("authorization", f"Bearer {stack.credentials.token}")]  # the tests' caller: all methods
    with grpc.insecure_channel(stack.address("lobby")) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        game = lobby.CreateGame(lobby_pb2.CreateGameRequest(
            member_id="m-alice", display_name="alice", game_type="scopone_scientifico"),
            metadata=metadata, timeout=10).game
        for name in ("bob", "carol", "dave"):
            lobby.JoinGame(lobby_pb2.JoinGameRequest(member_id=f"m-{name}", display_name=name,
                                                     join_code=game.join_code), metadata=metadata, timeout=10)
    request = stats_pb2.RecordMatchRequest(
        table_id=game.id, game_type="scopone_scientifico", result_json="{}",
        seats=[stats_pb2.SeatResult(seat=f"seat:{i}", seat_index=i, team="AB"[i % 2], won=i % 2 == 0,
                                    points=11 if i % 2 == 0 else 7) for i in range(4)])
    request.started_at.FromJsonString("2026-01-02T03:00:00Z")
    request.finished_at.FromJsonString("2026-01-02T03:25:00Z")
    with grpc.insecure_channel(stack.address("stats")) as channel:
        assert stats_pb2_grpc.StatsServiceStub(channel).RecordMatch(request, metadata=metadata, timeout=10).created


def test_the_wheel_holds_every_generated_module_with_its_type_stubs_and_ranges_not_pins(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for proto in PROTO_FILES:  # e.g. tavolo/stats/v1/stats
        for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi"):
            assert f"{proto}{suffix}" in names
        assert f"{proto.parent}/py.typed" in names
    assert "tavolo/py.typed" in names
    assert not [n for n in names if n.endswith("__init__.py")], "tavolo is a namespace package"
    assert not [n for n in names if not n.startswith(("tavolo/", "tavolo_api-"))]
    requires = sorted(line.removeprefix("Requires-Dist: ") for line in metadata.splitlines()
                      if line.startswith("Requires-Dist:"))
    assert [re.split(r"[<>=]", r)[0] for r in requires] == ["googleapis-common-protos", "grpcio", "protobuf"]
    for requirement in requires:
        assert "==" not in requirement and ">=" in requirement and "<" in requirement, requirement


def test_the_fresh_environment_has_the_client_and_none_of_the_server(venv, tmp_path):
    listed = run_in(venv, "-m", "pip", "list", "--format", "json", "--disable-pip-version-check", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    installed = {normalized(p["name"]) for p in json.loads(listed.stdout)} - {"pip", "setuptools", "wheel"}
    assert installed == CLIENT_DISTRIBUTIONS, installed ^ CLIENT_DISTRIBUTIONS
    assert not installed & SERVER_DISTRIBUTIONS
    assert not [name for name in installed if name.startswith("opentelemetry")]


def test_the_stubs_import_from_the_installed_package(venv, tmp_path):
    script = ("import tavolo.stats.v1.stats_pb2_grpc as m, tavolo.game.v1.game_pb2 as g\n"
              "from google.rpc import error_details_pb2\n"
              "print(m.__file__)\n"
              "print(g.DESCRIPTOR.services_by_name['GameService'].full_name)\n")
    ran = run_in(venv, "-c", script, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    location, service = ran.stdout.splitlines()
    assert Path(location).is_relative_to(venv.parents[1]) and "site-packages" in location
    assert service == "tavolo.game.v1.GameService"
    server_import = run_in(venv, "-c", "import services", cwd=tmp_path)
    assert "ModuleNotFoundError" in server_import.stderr


def test_type_checkers_see_the_type_stubs_of_the_installed_package(venv, tmp_path):
    # mypy (the project's) checks a caller's code against the fresh environment's packages: the
    # py.typed markers make it read the .pyi files, so a wrongly typed use is an error.
    (tmp_path / "caller.py").write_text(
        "from tavolo.stats.v1 import stats_pb2\n"
        "request = stats_pb2.GetLeaderboardRequest(limit=5)\n"
        "limit: int = request.limit\n"
        "name: str = request.limit\n")
    checked = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(venv), "--no-incremental",
                              "caller.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert checked.stdout.splitlines()[0] == ('caller.py:4: error: Incompatible types in assignment (expression has '
                                              'type "int", variable has type "str")  [assignment]'), checked.stdout
    assert "Found 1 error" in checked.stdout


def test_the_quick_start_reads_the_leaderboard_and_history_with_an_outside_teams_token(venv, stack, tmp_path):
    ran = run_in(venv, str(QUICKSTART), stack.address("stats"), cwd=tmp_path,
                 env={"TAVOLO_GRPC_TOKEN": stack.outside_token})
    assert ran.returncode == 0, ran.stderr
    # Elo: everyone starts at 1500; the winners of an even match gain K/2 = 16. The outside
    # team may read, not record: its RecordMatch is refused with the reason that says so.
    assert ran.stdout.splitlines() == [
        "leaderboard of scopone_scientifico:",
        "  1. alice: 1516 (1 won of 1)",
        "  2. carol: 1516 (1 won of 1)",
        "  3. bob: 1484 (0 won of 1)",
        "  4. dave: 1484 (0 won of 1)",
        "alice's latest matches:",
        "  2026-01-02T03:25:00Z scopone_scientifico: alice +16, bob -16, carol +16, dave -16",
        "RecordMatch: PERMISSION_DENIED, reason METHOD_NOT_ALLOWED",
    ]


def test_the_quick_start_without_a_token_is_refused_and_says_why(venv, stack, tmp_path):
    ran = run_in(venv, str(QUICKSTART), stack.address("stats"), cwd=tmp_path)
    assert ran.returncode == 1
    assert ran.stderr.startswith("failed: UNAUTHENTICATED, reason UNAUTHENTICATED:"), ran.stderr
    assert ran.stdout == ""


def test_the_quick_start_says_why_it_failed_when_nothing_answers(venv, tmp_path):
    closed = f"127.0.0.1:{free_port()}"
    ran = run_in(venv, str(QUICKSTART), closed, cwd=tmp_path)
    assert ran.returncode == 1
    assert ran.stderr.startswith("failed: UNAVAILABLE, reason :"), ran.stderr
    assert ran.stdout == ""


def test_the_readme_shows_the_quick_start_file_as_it_is():
    readme = (REPO / "protos" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert QUICKSTART.read_text() in blocks, "protos/README.md's Python quick start differs from " + str(
        QUICKSTART.relative_to(REPO))


# -- tavolo.client: the token, the retries, the error details -----------------------------------

HELPERS = CLIENT / "examples" / "helpers.py"


def test_the_helpers_example_is_typed_against_the_installed_package(venv, tmp_path):
    # grpcio ships no types: a caller adds types-grpcio, as the project does; here the project's
    # copy is lent through MYPYPATH rather than installed into the fresh environment.
    import importlib.util
    origin = importlib.util.find_spec("grpc-stubs")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    assert origin is not None and origin.submodule_search_locations
    (stubs / "grpc").symlink_to(next(iter(origin.submodule_search_locations)))
    shutil.copy(HELPERS, tmp_path / "helpers.py")
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = True\n[mypy-grpc.*]\nignore_errors = True\n")
    checked = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(venv), "--no-incremental",
                              "helpers.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "MYPYPATH": str(stubs)})
    assert checked.returncode == 0, checked.stdout


def test_the_retry_config_names_only_real_unary_methods_that_are_safe_to_repeat(venv, tmp_path):
    script = ("import json\nfrom tavolo.client import retry_service_config\n"
              "config = json.loads(retry_service_config())\n"
              "print(json.dumps(sorted(n['service'] + '/' + n['method'] for n in config['methodConfig'][0]['name'])))\n")
    ran = run_in(venv, "-c", script, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    names = set(json.loads(ran.stdout))
    assert {"tavolo.stats.v1.StatsService/GetLeaderboard", "tavolo.lobby.v1.LobbyService/JoinGame",
            "tavolo.stats.v1.StatsService/RecordMatch", "tavolo.game.v1.GameService/GetView"} <= names
    # a second game, a second move, a second message: never sent again by the transport
    for unsafe in ("LobbyService/CreateGame", "GameService/Act", "TalkService/Say", "LobbyService/WatchGame"):
        assert not [name for name in names if name.endswith(unsafe)], unsafe


def test_the_helpers_send_the_token_and_decode_error_info(venv, stack, tmp_path):
    ran = run_in(venv, str(HELPERS), stack.address("stats"), cwd=tmp_path,
                 env={"TAVOLO_GRPC_TOKEN": stack.outside_token})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "leaderboard: alice, carol, bob",
        "RecordMatch: PERMISSION_DENIED, reason METHOD_NOT_ALLOWED, caller=reporting, "
        "method=/tavolo.stats.v1.StatsService/RecordMatch",
    ]


def test_the_helpers_decode_bad_request_and_retry_info(venv, stack, tmp_path):
    """With every right: an empty RecordMatch names its fields (BadRequest); with the game
    service down, the lobby's CreateGame is UNAVAILABLE with the RetryInfo of protos/README.md."""
    stack.kill("game")
    try:
        ran = run_in(venv, str(HELPERS), stack.address("stats"), stack.address("lobby"), cwd=tmp_path,
                     env={"TAVOLO_GRPC_TOKEN": stack.credentials.token})
    finally:
        stack.start_again("game")
    assert ran.returncode == 0, ran.stderr
    record, create = ran.stdout.splitlines()[1:]
    assert record.startswith("RecordMatch: INVALID_ARGUMENT, reason INVALID_ARGUMENT, field=") and ", fields " in record
    assert create.startswith("CreateGame: UNAVAILABLE, reason UNAVAILABLE") and create.endswith("retry in 2 s"), create
