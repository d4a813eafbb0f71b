"""``niwa bench engine --baseline TREE`` runs TREE's own games, or refuses TREE.

The trees here are small fakes in temp folders: a pyproject.toml and an ``engine``
package with a one-seat game that ends after a few moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.cli import UsageError, main
from niwa.commands import bench_tree
from niwa.commands.bench import run_child

ENGINE = '''
CHANCE = -1


class CountState:
    def __init__(self):
        self.moves = 0

    def to_move(self):
        return () if self.moves >= 5 else (0,)

    def legal_actions(self, seat):
        return [{"type": "count"}]

    def apply(self, joint):
        self.moves += 1


class CountGame:
    def new_game(self, players, options):
        return CountState()
'''

REQUEST = {"kind": "playouts", "game": "count", "players": 1, "seed": 0, "clock": "cpu",
           "seconds": 0.01, "warmup": 0, "calls": 1}


def _tree(root: Path, entry_point: str | None) -> Path:
    (root / "engine" / "games").mkdir(parents=True)
    (root / "engine" / "__init__.py").write_text(ENGINE)
    (root / "engine" / "games" / "__init__.py").write_text(
        "from engine import CountGame\nGAME = CountGame()\n"
    )
    games = "" if entry_point is None else (
        f'[project.entry-points."niwa.games"]\ncount = "{entry_point}"\n'
    )
    (root / "pyproject.toml").write_text(f'[project]\nname = "old-niwa"\n{games}')
    return root


def test_a_baseline_tree_is_timed_with_its_own_engine_and_game(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "engine.games:GAME")
    doc = bench_tree.run(tree, REQUEST)
    [row] = doc["rows"]
    assert row["player_decisions_per_s"] > 0
    assert Path(doc["engine_file"]).is_relative_to(tree.resolve())
    assert Path(doc["game_file"]).is_relative_to(tree.resolve())


def test_a_tree_registering_no_games_is_refused_with_the_cause_and_the_fix(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path, None)
    with pytest.raises(bench_tree.TreeError) as refused:
        bench_tree.run(tree, REQUEST)
    message = str(refused.value)
    assert "registers no games" in message
    assert "git worktree add" in message


def test_a_tree_whose_entry_point_is_not_in_it_is_refused_not_filled_in_from_here(
    tmp_path: Path,
) -> None:
    # this checkout has niwa.engine.rulesets.blossom; the fake tree has not
    tree = _tree(tmp_path, "niwa.engine.rulesets.blossom:GAME")
    with pytest.raises(bench_tree.TreeError) as refused:
        bench_tree.run(tree, {**REQUEST, "game": "count"})
    # an installed checkout's finder may supply the module: found outside, refused
    message = str(refused.value)
    assert "niwa.engine.rulesets.blossom" in message
    assert "does not load from the tree" in message or "outside the tree" in message


def test_bench_engine_reports_a_refused_baseline_as_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    tree = _tree(tmp_path, None)
    argv = ["bench", "engine", "blossom", "--players", "2", "--runs", "1", "--seconds",
            "0.01", "--warmup", "0", "--baseline", str(tree)]
    assert main(argv) != 0
    assert f"--baseline {tree.resolve()} is refused" in capsys.readouterr().err


def test_a_baseline_too_old_for_the_harness_is_refused_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "measure_old.py").write_text("from json import a_name_json_never_had\n")
    with pytest.raises(UsageError) as refused:
        run_child([], str(tmp_path), module="measure_old")
    said = str(refused.value)
    assert "ImportError: cannot import name 'a_name_json_never_had'" in said
    assert "older than this harness can drive" in said
    assert "give a newer one" in said
