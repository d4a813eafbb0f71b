from __future__ import annotations

import pytest

import engine
from niwa.cli import main


def _bench(capsys: pytest.CaptureFixture[str]) -> str:
    argv = ["bench", "referee", "--matches", "1", "--startups", "1", "--calls", "5",
            "--bot", "builtin:random"]
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
    assert "load average " in out and "In process, end to end" in out
    for game in engine.games():
        assert f"\n{game} " in out
    assert "\nbare gRPC stub " in out and "\nunix echo " in out
    assert "sandboxed gRPC p50 / bare stub p50: " in out
    assert out.count("the goal") >= len(engine.games()) + 3
