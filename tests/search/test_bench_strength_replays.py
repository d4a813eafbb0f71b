"""``niwa bench strength-replays``: the replays kept by ``bench strength`` runs, scored
again and pooled, give what the runs printed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.commands.bench_strength import run as strength
from niwa.commands.bench_strength_replays import pool_replays
from tests.search.test_bench_strength import options


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, float]]]:
    """Two small sandboxed runs of greedy against random (other deals each), their
    replays in two folders, and the rows each run printed as JSON."""
    root = tmp_path_factory.mktemp("strength")
    rows = []
    for k in range(2):
        out = root / f"run{k}.json"
        args = options(replays=root / f"run{k}", seed=10 * k, matches=4, json=str(out))
        assert strength(args) == 0
        rows.append(json.loads(out.read_text())["rows"][0])
    return root, rows


def test_one_runs_replays_score_what_that_run_printed(
    two_runs: tuple[Path, list[dict[str, float]]],
) -> None:
    root, rows = two_runs
    pooled = pool_replays([root / "run0"], "greedy", "random")
    assert pooled.total.matches == rows[0]["matches"] == 4
    mean, low, high = pooled.total.score()
    assert (mean, low, high) == pytest.approx(
        (rows[0]["score"], rows[0]["score_low"], rows[0]["score_high"])
    )


def test_runs_pool_their_deals_and_leave_out_unfinished_and_other_matches(
    two_runs: tuple[Path, list[dict[str, float]]], tmp_path: Path
) -> None:
    root, _ = two_runs
    folder = tmp_path / "all"
    shutil.copytree(root, folder)
    [one, *_] = sorted((folder / "run1").glob("*.jsonl"))
    lines = one.read_text().splitlines()
    (folder / "cut.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # no result line
    pooled = pool_replays([folder], "greedy", "random")
    assert pooled.total.matches == 8 and len(pooled.total.by_deal) == 4
    assert pooled.unfinished == 1
    assert pool_replays([folder], "greedy", "mcts").others == 9


def test_the_command_prints_a_row_per_game_and_the_pooled_row(
    two_runs: tuple[Path, list[dict[str, float]]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = two_runs
    assert main(["bench", "strength-replays", str(root), "--pair", "greedy:random"]) == 0
    out = capsys.readouterr().out
    assert "\nsakura " in out and "\npooled " in out


def test_no_match_of_the_pair_is_refused_saying_what_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "strength-replays", str(tmp_path), "--pair", "greedy:mcts"]) == 2
    assert "no finished match between greedy and mcts" in capsys.readouterr().err
