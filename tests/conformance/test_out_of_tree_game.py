"""niwa.engine.testing runs the whole suite on a game that is neither part of niwa nor
registered: the tiny high-card game in tests/conformance/highcard/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from niwa.engine import State
from niwa.engine.testing import conformance_cases, conformance_tests
from niwa.engine.testing.checks import check_round_trip_every_step
from tests.conformance.highcard import GAME, HighCardGame, HighCardState

# the one line an outside game's test module needs
test_highcard_conformance = conformance_tests(GAME)

REPO = Path(__file__).resolve().parents[2]

LEAKY_MODULE = '''
from niwa.engine.testing import conformance_tests
from tests.conformance.highcard import HighCardGame, HighCardState


class PeekingState(HighCardState):
    """High card, except each seat also sees the next seat's card."""

    def observe(self, seat):
        obs = super().observe(seat)
        if seat is not None:
            obs["peek"] = self.cards[(seat + 1) % self.players]
        return obs

    def clone(self):
        return PeekingState(self.to_json())


class PeekingGame(HighCardGame):
    def new_game(self, players, options=None):
        return PeekingState(super().new_game(players, options).to_json())

    def from_json(self, data):
        return PeekingState(data)

    def determinize(self, observation, seat, rng):
        return PeekingState(super().determinize(observation, seat, rng).to_json())


test_peeking_game = conformance_tests(PeekingGame())
'''


def test_the_suite_covers_every_player_count_and_the_option() -> None:
    labels = {case.label for case, _, _ in conformance_cases(GAME)}
    assert labels == {
        "highcard-2p",
        "highcard-3p",
        "highcard-2p-lowest_wins=True",
        "highcard-3p-lowest_wins=True",
    }


def test_one_pytest_call_on_an_outside_module_fails_exactly_the_leak_checks(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_peeking.py").write_text(LEAKY_MODULE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", "test_peeking.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-2000:]
    failed = re.findall(r"^FAILED test_peeking.py::test_peeking_game\[(\S+)\]", out.stdout, re.M)
    want = [f"{c.label}-{check}-seed{s}" for c, check, s in conformance_cases(GAME)]
    leak_ids = [i for i in want if "-no_leak-" in i or "-hidden_views_agree-" in i]
    assert sorted(failed) == sorted(leak_ids)
    assert f"{len(leak_ids)} failed, {len(want) - len(leak_ids)} passed" in out.stdout


class _MisspelledState(HighCardState):
    """High card whose snapshot text has JSON's default spaces: not canonical."""

    def snapshot_text(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    def clone(self) -> _MisspelledState:
        return _MisspelledState(self.to_json())


class _MisspelledGame(HighCardGame):
    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        return _MisspelledState(super().new_game(players, options).to_json())

    def from_json(self, data: Mapping[str, Any]) -> State:
        return _MisspelledState(data)


def test_the_round_trip_check_refuses_a_snapshot_text_that_is_not_canonical() -> None:
    with pytest.raises(AssertionError, match=r"snapshot_text\(\) is not the canonical JSON"):
        check_round_trip_every_step(_MisspelledGame(), 2, 0)
