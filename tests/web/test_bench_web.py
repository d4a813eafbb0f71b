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


def test_bench_web_viewer_times_every_games_frames_beside_a_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = Path(__file__).resolve().parents[2]  # this checkout stands in for a baseline
    args = ["bench", "web", "--viewer", "--steps", "30", "--repeat", "1",
            "--baseline", str(checkout)]
    assert main([*args, "--json", "-"]) == 0
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert set(document["games"]) == {"blossom", "sakura", "bonsai", "miyabi"}
    for figures in document["games"].values():
        assert figures["frames"] > 30
        assert {"this", "baseline"} <= set(figures)
        assert all(run["max_ms"] >= run["p95_ms"] > 0 for run in figures["this"])
        assert all(1 <= run["slowest_step"] < figures["frames"] and run["open_ms"] > 0
                   for run in figures["this"])  # fmt: skip
        assert figures["this_best"]["max_ms"] <= figures["this"][0]["max_ms"]
    assert document["slowest_game"] in document["games"]
    assert "each frame's best of 1 runs" in out.err and "load average" in out.err
    assert "slowest game: " in out.err and "; baseline " in out.err


def test_bench_web_viewer_paced_shows_one_frame_per_animation_frame(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "web", "--viewer", "--paced", "--steps", "20", "--repeat", "1"]
    assert main([*args, "--json", "-"]) == 0
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert document["paced"] is True
    for figures in document["games"].values():
        assert figures["frames"] > 20
        assert all(run["max_ms"] >= run["p95_ms"] > 0 for run in figures["this"])
    assert "one frame per animation frame (--paced)" in out.err


def test_bench_web_viewer_refuses_a_baseline_that_is_no_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "web", "--viewer", "--baseline", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "has no niwa/web/static/viewer.js: give a niwa checkout's root" in err
