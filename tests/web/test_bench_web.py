"""``niwa bench web`` at a small scale: every page answered, figures in its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from tests.web.matches import play


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


def test_bench_web_times_a_match_page_s_payload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = play("sakura", tmp_path)
    capsys.readouterr()
    assert main(["bench", "web", "--replay", str(replay), "--repeat", "2", "--json", "-"]) == 0
    payloads = json.loads(capsys.readouterr().out)["payloads"]
    assert len(payloads) == 2 and all(p["frames"] > 1 and p["bytes"] > 0 for p in payloads)


def test_bench_web_live_times_frames_reaching_watchers_and_the_web_process_s_cpu(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "web", "--live", "--live-steps", "3", "--watchers", "2", "--pace-ms", "600"]
    assert main([*args, "--json", "-"]) == 0
    out = capsys.readouterr()
    runs = json.loads(out.out)["runs"]
    assert [r["watchers"] for r in runs] == [0, 2]  # the baseline first
    assert runs[0]["latency_ms"] == [] and len(runs[1]["latency_ms"]) == 2 * 3
    assert all(r["cpu_s"] >= 0 and r["steps"] == 3 for r in runs)
    assert "load average" in out.err
