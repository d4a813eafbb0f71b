from __future__ import annotations

import pytest

from niwa.cli import main


def test_bench_referee_prints_both_modes_and_start_up_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "referee", "--matches", "1", "--startups", "1", "--bot", "builtin:random"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\nin process " in out and "\nsandboxed gRPC " in out
    assert "overhead per decision (p50 difference)" in out
    assert "\nbuiltin:random " in out
