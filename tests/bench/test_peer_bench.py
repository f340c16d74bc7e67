"""The peer bench finds boardgame.io's side where it is told, and says why it is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import peer_bench


def test_the_folder_named_by_peer_bench_dir_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "load.js").write_text("// the load generator")
    monkeypatch.setenv("PEER_BENCH_DIR", str(tmp_path))
    assert peer_bench.peer_folder() == tmp_path


def test_without_the_peer_the_bench_is_skipped_not_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PEER_BENCH_DIR", str(tmp_path))  # no load.js there
    assert peer_bench.peer_folder() is None
    peer_bench.main()  # returns before starting anything
    assert "skipped: no peer bench" in capsys.readouterr().out


def test_the_ratio_table_has_every_measure_each_round_and_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    def result(scale: float) -> dict:
        return {"moves": 100, "server_cpu_s": {"gateway": 0.2 * scale, "game": 0.1 * scale}, "p50_ms": 1.0 * scale,
                "p99_ms": 10.0 * scale, "moves_per_s": 1000.0 / scale, "errors": {}, "resends": 0, "stalls": 0}

    rounds = [{load.name: {"tavolo": result(scale), "bgio": result(1.0)} for load in peer_bench.LOADS}
              for scale in (2.0, 4.0)]
    peer_bench._print(rounds)
    out = capsys.readouterr().out
    assert out.count("range") == len(peer_bench.MEASURES)
    assert "2.00x-4.00x" in out and "0.25x-0.50x" in out  # costs and times, then moves/s
    assert "gateway" in out and "note:" not in out
