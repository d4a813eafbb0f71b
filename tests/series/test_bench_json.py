"""``niwa bench ... --json``: each benchmark's figures as one JSON document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from niwa import engine
from niwa.cli import main


def test_bench_engine_writes_its_rows_as_json_to_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "engine", "blossom", "--players", "2", "--runs", "1", "--seconds", "0.05",
            "--json", "-"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # stdout holds the document only
    assert doc["benchmark"] == "engine"
    [row] = doc["rows"]
    assert (row["game"], row["players"]) == ("blossom", 2) and row["games_per_s"] > 0
    assert "games/s" in captured.err  # the text table moved to stderr


def test_bench_engine_json_gives_the_seed_as_a_string_with_every_digit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed = 2**60 + 1  # past 2**53: a reader whose numbers are doubles would round it
    argv = ["bench", "engine", "blossom", "--players", "2", "--runs", "1", "--seconds", "0.05",
            "--warmup", "0", "--seed", str(seed), "--json", "-"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == str(seed)


def test_bench_engine_counts_chance_apart_from_player_decisions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "engine", "blossom", "--players", "2", "--runs", "1", "--seconds", "0.05",
            "--warmup", "0", "--json", "-"]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    decisions, chance = row["player_decisions_per_s"], row["chance_applies_per_s"]
    assert decisions > 0 and chance > 0  # Blossom deals and draws: both happen
    assert row["applies_per_s"] == pytest.approx(decisions + chance)


def test_bench_referee_writes_modes_and_start_ups_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "referee.json"
    argv = ["bench", "referee", "--matches", "1", "--rounds", "1", "--startups", "1",
            "--calls", "5", "--bot", "builtin:random", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert set(doc["decisions"]) == {"in process", "gRPC, no sandbox", "sandboxed gRPC",
                                     "sandboxed, pondering"}
    assert doc["decisions"]["sandboxed gRPC"]["count"] > 0
    assert doc["decisions"]["sandboxed gRPC"]["end_to_end_ms"] > 0
    assert set(doc["in_process"]) == set(engine.games())
    assert all(row["decisions"] > 0 for row in doc["in_process"].values())
    assert {k: v["count"] for k, v in doc["baselines"].items()} == {
        "bare stub": 5, "unix echo": 5, "same socket referee": 5, "same socket stub": 5}
    assert set(doc["same_socket_cpu_us"]) == {
        "referee_client", "referee_bots", "stub_client", "stub_bots"}
    assert set(doc["goals"]) == {"p50_vs_stub_same_socket", "p50_ms", "p99_ms"}
    assert doc["decision_vs_bare_stub"] > 0
    assert [s["bot"] for s in doc["startups"]] == ["builtin:random"]
    assert doc["startups"][0]["p50_ms"] > 0


def test_bench_ladder_writes_its_rate_as_json(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    argv = ["bench", "ladder", "--matches", "2", "--game", "blossom", "--workers", "1",
            "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["matches"] == 2 and doc["matches_per_minute"] > 0
    assert 0 <= doc["outside_the_bots"] <= 1


def test_bench_strength_writes_its_pairings_as_json(tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    argv = ["bench", "strength", "sakura", "--pair", "greedy:random", "--players", "2",
            "--matches", "2", "--time", "1s+10s", "--jobs", "2", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    [row] = doc["rows"]
    assert (row["a"], row["b"], row["matches"]) == ("greedy", "random", 2)
    assert row["score_low"] <= row["score"] <= row["score_high"]
    assert row["failures"] == {}
    assert doc["seed"] == "0"  # a string: a reader of doubles keeps every digit


def test_bench_search_writes_iterations_per_second_per_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a fixed count on the CPU clock: 0.02 s of wall time at load 8 once saw no iteration
    argv = ["bench", "search", "blossom", "--players", "2", "--positions", "2",
            "--iterations", "20", "--clock", "cpu", "--json", "-"]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    [row] = document["rows"]
    assert (document["bench"], row["game"], row["players"], row["positions"]) == (
        "search", "blossom", 2, 2)
    assert 0 < row["min"] <= row["iterations_per_s"] <= row["max"]


def test_bench_search_names_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "search", "chess"]) == 2
    assert "no game 'chess'" in capsys.readouterr().err


def test_every_bench_option_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for target in ("engine", "referee", "ladder", "strength", "search"):
        with pytest.raises(SystemExit):
            main(["bench", target, "--help"])
        text = capsys.readouterr().out
        assert "--json FILE" in text and "one JSON document" in text
    from niwa.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    bench = sub.choices["bench"]  # type: ignore[attr-defined]
    targets = next(a for a in bench._actions if a.dest == "target")
    for name, p in targets.choices.items():
        for action in p._actions:
            assert action.help, f"bench {name} {action.option_strings or action.dest}"


def test_bench_engine_against_a_baseline_checkout_reports_paired_ratios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = Path(__file__).resolve().parents[2]  # this checkout against itself
    argv = ["bench", "engine", "sakura", "--players", "3", "--runs", "2", "--seconds", "0.05",
            "--warmup", "0", "--baseline", str(checkout), "--json", "-"]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    assert row["baseline_player_decisions_per_s"] > 0 and row["player_decisions_per_s"] > 0
    assert 0 < row["ratio_min"] <= row["ratio_median"] <= row["ratio_max"]


ROOT = Path(__file__).resolve().parents[2]


def marked_copy(package: str, tmp_path: Path, old_layout: bool = False) -> tuple[Path, Path]:
    """A baseline checkout holding a copy of this checkout's ``niwa.<package>`` that
    appends a line to the returned mark file each time it is imported; laid out as
    ``niwa/<package>/``, or with ``old_layout`` as a checkout from before niwa was one
    package (``<package>/`` at the top, its imports saying ``<package>``)."""
    base = tmp_path / "base"
    where = base / package if old_layout else base / "niwa" / package
    shutil.copytree(ROOT / "niwa" / package, where,
                    ignore=shutil.ignore_patterns("__pycache__"))
    if old_layout:
        for source in where.rglob("*.py"):
            text = source.read_text()
            source.write_text(text.replace(f"from niwa.{package}", f"from {package}")
                              .replace(f"from niwa import {package}", f"import {package}"))
    else:
        for top_module in ("__init__.py", "errors.py"):  # what niwa.<package> imports of niwa
            shutil.copy(ROOT / "niwa" / top_module, base / "niwa")
    mark = tmp_path / "imported"
    with (where / "__init__.py").open("a") as f:
        f.write(f"\nopen({str(mark)!r}, 'a').write('baseline\\n')\n")
    return base, mark


def test_bench_engine_baseline_runs_import_the_baselines_engine_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A baseline whose engine marks each import; run from this checkout's root, where
    # `python -m` would put this checkout's own engine first on sys.path.
    base, mark = marked_copy("engine", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", base)  # where a tree registers its games
    monkeypatch.chdir(ROOT)
    argv = ["bench", "engine", "sakura", "--players", "3", "--runs", "2", "--seconds", "0.05",
            "--warmup", "0", "--baseline", str(base), "--json", "-"]
    assert main(argv) == 0
    capsys.readouterr()
    assert mark.read_text().splitlines() == ["baseline", "baseline"]  # one per baseline run


def test_bench_engine_refuses_a_baseline_without_an_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "engine", "sakura", "--baseline", str(tmp_path)]
    assert main(argv) == 2
    assert "has no niwa/engine/ package" in capsys.readouterr().err


def test_bench_engine_snapshots_times_each_call_early_and_late_both_ways(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "engine", "blossom", "--players", "2", "--snapshots", "--runs", "1",
            "--calls", "10", "--json", "-"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["benchmark"] == "engine snapshots"
    rows = doc["rows"]
    assert {(r["what"], r["way"]) for r in rows} == {
        (what, way) for what in ("to_json", "observe", "hash")
        for way in ("same state", "in play")}
    for r in rows:
        assert r["early_us"] > 0 and r["late_us"] > 0 and r["early_bytes"] > 0
        assert r["growth"] == pytest.approx(r["late_us"] / r["early_us"])


def test_bench_engine_snapshots_against_a_baseline_times_the_same_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = Path(__file__).resolve().parents[2]  # this checkout against itself
    argv = ["bench", "engine", "blossom", "--players", "2", "--snapshots", "--runs", "2",
            "--calls", "10", "--baseline", str(checkout), "--json", "-"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) == 6
    assert all(r["baseline_late_hash"] == r["late_hash"] for r in rows)
    assert all(r["baseline_late_us"] > 0 for r in rows)


def test_bench_search_with_fixed_iterations_rates_them_on_the_cpu_clock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "search", "miyabi", "--players", "2", "--positions", "2",
            "--iterations", "20", "--clock", "cpu", "--json", "-"]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["iterations"], document["clock"]) == (20, "cpu")
    assert document["rows"][0]["iterations_per_s"] > 0


def test_bench_search_with_the_learned_value_rates_that_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "search", "miyabi", "--players", "2", "--positions", "2",
            "--iterations", "20", "--clock", "cpu", "--eval", "learned", "--json", "-"]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["eval"] == "learned"
    assert document["rows"][0]["iterations_per_s"] > 0


def test_bench_search_baseline_runs_search_with_the_baselines_bots_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, mark = marked_copy("bots", tmp_path)
    argv = ["bench", "search", "sakura", "--players", "3", "--positions", "2",
            "--iterations", "10", "--clock", "cpu", "--runs", "2", "--baseline", str(base),
            "--json", "-"]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    assert mark.read_text() == "baseline\n" * 2  # one fresh process per baseline run
    assert row["baseline_iterations_per_s"] > 0 and row["iterations_per_s"] > 0
    assert 0 < row["ratio_min"] <= row["ratio_median"] <= row["ratio_max"]


def test_bench_search_baseline_from_before_the_package_move_runs_its_bots_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkout whose packages were top level (``bots/``, imported as ``bots``)."""
    base, mark = marked_copy("bots", tmp_path, old_layout=True)
    argv = ["bench", "search", "sakura", "--players", "3", "--positions", "2",
            "--iterations", "10", "--clock", "cpu", "--runs", "2", "--baseline", str(base),
            "--json", "-"]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    assert mark.read_text() == "baseline\n" * 2
    assert row["baseline_iterations_per_s"] > 0


def test_bench_search_baseline_stack_runs_the_baselines_engine_on_the_same_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, mark = marked_copy("engine", tmp_path)
    shutil.copytree(ROOT / "niwa" / "bots", base / "niwa" / "bots",
                    ignore=shutil.ignore_patterns("__pycache__"))
    argv = ["bench", "search", "miyabi", "--players", "2", "--positions", "2",
            "--iterations", "10", "--clock", "cpu", "--runs", "2", "--baseline-stack",
            str(base), "--json", "-"]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["rows"]
    assert mark.read_text() == "baseline\n" * 2  # its engine, in each baseline run
    assert row["baseline_engine"] == str((base / "niwa" / "engine").resolve())
    assert row["same_positions"] is True
