"""``niwa bench web`` at a small scale: every page answered, figures in its JSON."""

from __future__ import annotations

import json

import pytest

from niwa.cli import main


def test_bench_web_times_every_page_on_a_synthetic_store(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "web", "--synthetic", "300", "--bots", "60", "--rounds", "2", "--repeat", "1"]
    assert main([*args, "--json", "-"]) == 0
    out = capsys.readouterr()
    document = json.loads(out.out)
    pages = document["runs"][0]["pages"]
    assert {"leaderboard", "leaderboard page 2", "match list", "bot page"} <= set(pages)
    assert all(len(p["warm_cpu_ms"]) == 2 for p in pages.values())
    assert "load average" in out.err
