"""`buf generate` (protos/buf.gen.yaml) writes Go and TypeScript clients that build and work: the
Go module compiles against Debian's grpc-go and calls the running services with a token (and
reads an ErrorInfo reason), the TypeScript
compiles with tsc and round-trips a message. The plugins and compilers are installed by
`.ci/run` (Debian: protoc-gen-go, protoc-gen-go-grpc, golang-go and the Go libraries) and by
tools/package.json (buf, protoc-gen-es, @bufbuild/protobuf, typescript); this test installs
nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from testing.stack import Stack

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools" / "node_modules"
GO_MODULE = "github.com/tavolo-dev/tavolo/gen/go"
# Debian's Go libraries, for a build in GOPATH mode without the module proxy.
DEBIAN_GOPATH = Path("/usr/share/gocode")
PROTO_FILES = sorted(path.relative_to(REPO / "protos").with_suffix("")
                     for path in (REPO / "protos").rglob("*.proto"))
# Each proto file that declares a service, and the service (go-grpc writes a file per such proto).
SERVICE_FILES = {"deadlines/v1/deadlines": "DeadlineService", "game/v1/game": "GameService",
                 "lobby/v1/lobby": "LobbyService", "lobby/v1/players": "PlayersService",
                 "stats/v1/stats": "StatsService", "bots/v1/bots": "BotsService", "bots/v1/analysis": "AnalysisService",
                 "talk/v1/talk": "TalkService"}
INSTALLED_BY_CI = "installed by .ci/run (Debian packages) and `make lint` (tools/package.json)"


def tool_path() -> str:
    return os.pathsep.join([str(TOOLS / ".bin"), os.environ.get("PATH", "")])


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    for tool in ("protoc-gen-go", "protoc-gen-go-grpc", "go"):
        assert shutil.which(tool), f"{tool} is not on PATH: {INSTALLED_BY_CI}"
    assert (TOOLS / ".bin" / "buf").exists(), f"tools/node_modules has no buf: {INSTALLED_BY_CI}"
    out = tmp_path_factory.mktemp("gen")
    ran = subprocess.run([TOOLS / ".bin" / "buf", "generate", "protos", "--template", "protos/buf.gen.yaml",
                          "-o", str(out)], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PATH": tool_path()})
    assert ran.returncode == 0, ran.stderr
    return out


@pytest.fixture(scope="module")
def stack():
    """Every component as its own process, callers checked; the Go client calls as an outside
    team (stack.outside_token), which may read ratings and history only."""
    running = Stack().start()
    yield running
    running.stop()


def test_every_proto_file_has_its_go_and_typescript_files(generated):
    files = {str(path.relative_to(generated)) for path in generated.rglob("*") if path.is_file()}
    expected = {f"ts/{proto}_pb.ts" for proto in PROTO_FILES} | {f"go/{proto}.pb.go" for proto in PROTO_FILES}
    expected |= {f"go/tavolo/{proto}_grpc.pb.go" for proto in SERVICE_FILES}
    assert files == expected
    for proto, service in SERVICE_FILES.items():
        package = proto.split("/")[0]
        go = (generated / "go" / "tavolo" / f"{proto}_grpc.pb.go").read_text()
        assert f"package {package}v1\n" in go
        assert f"type {service}Client interface" in go and f"type {service}Server interface" in go
        ts = (generated / "ts" / "tavolo" / f"{proto}_pb.ts").read_text()
        assert f"export const {service}: GenService<" in ts


GO_MAIN = """package main

import (
	"context"
	"fmt"
	"os"
	"time"

	commonv1 "MODULE/tavolo/common/v1"
	deadlinesv1 "MODULE/tavolo/deadlines/v1"
	gamev1 "MODULE/tavolo/game/v1"
	lobbyv1 "MODULE/tavolo/lobby/v1"
	statsv1 "MODULE/tavolo/stats/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func dial(ctx context.Context, address string) *grpc.ClientConn {
	conn, err := grpc.DialContext(ctx, address, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		panic(err)
	}
	return conn
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+os.Getenv("TAVOLO_GRPC_TOKEN"))
	lobbyConn, statsConn := dial(ctx, os.Args[1]), dial(ctx, os.Args[2])
	defer lobbyConn.Close()
	defer statsConn.Close()
	var _ deadlinesv1.DeadlineServiceClient = deadlinesv1.NewDeadlineServiceClient(lobbyConn)
	var _ gamev1.GameServiceClient = gamev1.NewGameServiceClient(lobbyConn)
	board, err := statsv1.NewStatsServiceClient(statsConn).GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Limit: 5})
	if err != nil {
		panic(err)
	}
	fmt.Println(board.GetGameType(), len(board.GetEntries()))
	// An outside team may not call the lobby: the reason is in the status details.
	_, err = lobbyv1.NewLobbyServiceClient(lobbyConn).ListGameTypes(ctx, &lobbyv1.ListGameTypesRequest{})
	refused := status.Convert(err)
	for _, detail := range refused.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			fmt.Println(refused.Code(), info.GetReason(), info.GetDomain())
		}
	}
	fmt.Println(commonv1.ErrorReason_ERROR_REASON_METHOD_NOT_ALLOWED)
}
""".replace("MODULE", GO_MODULE)


def test_the_go_module_builds_and_calls_the_services(generated, stack, tmp_path):
    # GOPATH mode: the module's packages at their import path, Debian's grpc-go and protobuf
    # beside them; no module proxy, no download.
    gopath = tmp_path / "gopath"
    shutil.copytree(generated / "go", gopath / "src" / GO_MODULE)
    (gopath / "src" / "caller").mkdir(parents=True)
    (gopath / "src" / "caller" / "main.go").write_text(GO_MAIN)
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": f"{gopath}{os.pathsep}{DEBIAN_GOPATH}",
           "GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "", "GOPROXY": "off"}
    built = subprocess.run(["go", "build", "-o", str(tmp_path / "caller"), "caller"], cwd=gopath,
                           capture_output=True, text=True, timeout=180, env=env)
    assert built.returncode == 0, built.stderr
    vetted = subprocess.run(["go", "vet", f"{GO_MODULE}/..."], cwd=gopath, capture_output=True, text=True,
                            timeout=180, env=env)
    assert vetted.returncode == 0, vetted.stderr
    ran = subprocess.run([tmp_path / "caller", stack.address("lobby"), stack.address("stats")],
                         capture_output=True, text=True, timeout=30,
                         env={**os.environ, "TAVOLO_GRPC_TOKEN": stack.outside_token})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["scopone_scientifico 0", "PermissionDenied METHOD_NOT_ALLOWED tavolo.dev",
                                       "ERROR_REASON_METHOD_NOT_ALLOWED"]


TS_CHECK = """import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ErrorReason } from "./tavolo/common/v1/errors_pb.js";
import { DeadlineService } from "./tavolo/deadlines/v1/deadlines_pb.js";
import { GameService } from "./tavolo/game/v1/game_pb.js";
import { LobbyService } from "./tavolo/lobby/v1/lobby_pb.js";
import { GetLeaderboardRequestSchema, StatsService } from "./tavolo/stats/v1/stats_pb.js";

const request = create(GetLeaderboardRequestSchema, { gameType: "scopone_scientifico", limit: 5 });
const decoded = fromBinary(GetLeaderboardRequestSchema, toBinary(GetLeaderboardRequestSchema, request));
const limit: number = decoded.limit;
console.log(JSON.stringify({
  services: [DeadlineService, GameService, LobbyService, StatsService].map((service) => service.typeName),
  methods: StatsService.methods.map((method) => method.name),
  decoded: { gameType: decoded.gameType, limit },
  reason: ErrorReason[ErrorReason.NOT_YOUR_TURN],
}));
"""


def test_the_typescript_compiles_with_tsc_and_round_trips_a_message(generated, tmp_path):
    project = tmp_path / "ts"
    shutil.copytree(generated / "ts", project)
    (project / "node_modules").symlink_to(TOOLS, target_is_directory=True)
    (project / "package.json").write_text('{"type": "module"}\n')
    (project / "check.ts").write_text(TS_CHECK)
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext",
        "outDir": "out", "skipLibCheck": False, "noUnusedLocals": True}, "include": ["**/*.ts"]}))
    compiled = subprocess.run([TOOLS / ".bin" / "tsc", "-p", "tsconfig.json"], cwd=project, capture_output=True,
                              text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    ran = subprocess.run(["node", "out/check.js"], cwd=project, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {
        "services": ["tavolo.deadlines.v1.DeadlineService", "tavolo.game.v1.GameService",
                     "tavolo.lobby.v1.LobbyService", "tavolo.stats.v1.StatsService"],
        "methods": ["RecordMatch", "ListMatches", "GetRatings", "GetLeaderboard", "EraseMember"],
        "decoded": {"gameType": "scopone_scientifico", "limit": 5},
        "reason": "NOT_YOUR_TURN",
    }
