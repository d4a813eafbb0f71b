from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa import engine
from niwa.cli import main

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "python-bot")


def _bench(capsys: pytest.CaptureFixture[str]) -> str:
    argv = ["bench", "referee", "--matches", "1", "--rounds", "1", "--startups", "1",
            "--calls", "5", "--bot", "builtin:random"]
    assert main(argv) == 0
    return capsys.readouterr().out


def test_bench_referee_prints_both_modes_and_start_up_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _bench(capsys)
    assert "\nin process " in out and "\nsandboxed gRPC " in out
    assert "overhead per decision (p50 difference)" in out
    assert "\nbuiltin:random " in out


def test_bench_referee_prints_every_game_in_process_and_both_baselines_judged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _bench(capsys)
    assert "load average " in out and "In process, whole matches with the observation" in out
    for game in engine.games():
        assert f"\n{game} " in out
    assert "\nbare gRPC stub " in out and "\nunix echo " in out
    assert "\nsame socket: referee " in out and "\nsame socket: stub " in out
    assert "referee's client p50 / stub p50 on the same sandboxed sockets: " in out
    assert "CPU per call on the same sockets, µs (calling process / bots' cgroups): " in out
    assert "sandboxed gRPC decision p50 / bare stub p50 " in out
    assert out.count("the goal") >= len(engine.games()) + 3


def test_bench_referee_bots_only_times_a_bot_directorys_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bots.json"
    argv = ["bench", "referee", "--bots-only", "--startups", "1", "--bot-matches", "1",
            "--players", "2", "--bot", EXAMPLE, "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert "in_process" not in doc and doc["decisions"] == {}
    [timed] = doc["bot_decisions"]
    assert timed["bot"] == EXAMPLE and timed["count"] > 0 and timed["p50_ms"] > 0


def test_bench_referee_times_the_whole_match_beside_a_baseline_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "referee.json"
    argv = ["bench", "referee", "--matches", "1", "--rounds", "2", "--startups", "1",
            "--calls", "5", "--bot", "builtin:random", "--baseline",
            str(Path(__file__).parents[2]), "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    for row in doc["in_process"].values():
        assert len(row["rounds_us"]) == 2 and row["baseline_cpu_us"] > 0
        parts = row["requests_us"] + row["loop_rest_us"] + row["per_match_us"]
        assert parts == pytest.approx(row["referee_cpu_us"])
        assert row["requests_us"] > 0  # every seat's request was built
