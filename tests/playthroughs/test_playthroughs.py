"""Golden playthroughs: every game at every player count replays its checked-in log
exactly, and a rules change that alters the log fails until the version is bumped."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from niwa import engine
from niwa.engine.rulesets.blossom import BlossomGame, BlossomState
from niwa.engine.testing import playthrough
from tests.playthroughs import golden

CASES = sorted(golden.expected_paths().items())
IDS = [path.stem for path, _ in CASES]


def _missing(path: Path, name: str) -> str:
    return (
        f"no golden playthrough {path.name}: if {name}'s rules version was bumped on purpose,"
        f" write it with: {golden.regenerate_command(name)}"
    )


@pytest.mark.parametrize(("path", "case"), CASES, ids=IDS)
def test_the_golden_playthrough_replays_exactly(path: Path, case: tuple[str, int]) -> None:
    name, _ = case
    assert path.exists(), _missing(path, name)
    lines = playthrough.from_text(path.read_text(encoding="utf-8"))
    problem = playthrough.replay(engine.load(name), lines, golden.regenerate_command(name))
    assert problem is None, f"{path.name}: {problem}"


def test_no_golden_is_left_for_a_rules_version_or_player_count_that_is_gone() -> None:
    stale = sorted(p.name for p in golden.DIR.glob("*.jsonl"))
    stale = [p for p in stale if golden.DIR / p not in golden.expected_paths()]
    assert stale == [], (
        f"{stale}: no registered game at that rules version and player count; delete them"
        f" (python -m tests.playthroughs.regenerate does, for the games it rewrites)"
    )


def test_the_golden_log_holds_every_seats_full_observation_at_every_step() -> None:
    game = engine.load("blossom")
    lines = playthrough.from_text(golden.path_for(game, 3).read_text(encoding="utf-8"))
    state = game.new_game(3)
    views: dict[str, Any] = {"-": {}, "0": {}, "1": {}, "2": {}}
    for line in lines[1:]:
        for key, seat in [("-", None), ("0", 0), ("1", 1), ("2", 2)]:
            views[key] = playthrough.patch(views[key], line["views"].get(key, []))
            assert views[key] == state.observe(seat), f"step {line['step']}, viewer {key}"
        if "joint" in line:
            state.apply({int(s): a for s, a in line["joint"].items()})
    assert state.is_over() and lines[-1]["result"] == state.result().to_json()


class ChangedRulesState(BlossomState):
    """Blossom with one rules change: the phase is spelled differently."""

    def observe(self, seat: int | None) -> dict[str, Any]:
        obs = super().observe(seat)
        obs["phase"] = f"changed {obs['phase']}"
        return obs

    def clone(self) -> ChangedRulesState:
        return ChangedRulesState.from_json(self.to_json())


class ChangedRulesGame(BlossomGame):
    def new_game(self, players: int, options: Any = None) -> ChangedRulesState:
        return ChangedRulesState.from_json(super().new_game(players, options).to_json())


def _blossom_golden() -> list[dict[str, Any]]:
    path = golden.path_for(engine.load("blossom"), 2)
    return playthrough.from_text(path.read_text(encoding="utf-8"))


def test_a_rules_change_without_a_version_bump_fails_the_replay() -> None:
    problem = playthrough.replay(ChangedRulesGame(), _blossom_golden(), "REGEN")
    assert problem is not None
    assert problem.startswith("step 0 differs (views: stored")
    assert "bump blossom's rules version" in problem and problem.endswith("regenerate with: REGEN")


def test_a_version_bump_without_a_new_golden_names_the_file_and_the_command() -> None:
    game = ChangedRulesGame()
    name, _, number = game.info.version.partition("@")
    bumped = f"{name}@{int(number) + 1}"  # the next version, whatever is installed now
    game.info = dataclasses.replace(game.info, version=bumped)
    path = golden.path_for(game, 2)
    assert path.name == f"{bumped}-2p.jsonl" and not path.exists()
    assert "python -m tests.playthroughs.regenerate blossom" in _missing(path, "blossom")
    problem = playthrough.replay(game, _blossom_golden(), "REGEN")
    assert problem is not None and problem.startswith("header ")


def test_a_refused_stored_move_is_reported_with_its_step() -> None:
    lines = _blossom_golden()
    step = next(i for i, line in enumerate(lines) if line.get("legal"))
    lines[step] = {**lines[step], "joint": {str(lines[step]["to_move"][0]): "not-an-action"}}
    problem = playthrough.replay(engine.load("blossom"), lines, "REGEN")
    assert problem is not None and "is now refused" in problem


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"a": [1, 2, 3], "b": {"c": 1}}, {"a": [1, 9, 2, 3], "b": {}}),
        ([1, 2, 3, 4], [1, 4]),
        ({"x": 1}, {"x": True}),
        ([], [[1, 2], {"k": None}]),
    ],
)
def test_patch_of_diff_rebuilds_the_new_value(old: Any, new: Any) -> None:
    ops = playthrough.diff(old, new)
    rebuilt = playthrough.patch(old, ops)
    assert rebuilt == new and type(rebuilt) is type(new)
    assert [type(v) for v in (rebuilt.values() if isinstance(rebuilt, dict) else rebuilt)] == [
        type(v) for v in (new.values() if isinstance(new, dict) else new)
    ]
