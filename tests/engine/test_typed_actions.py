"""Every built-in game types its actions and phases (docs/adding-a-game.md, "Typed
actions and phases"): an ``actions.py`` with a ``Phase`` StrEnum whose values are the
strings a state's ``phase`` holds, so the JSON stays what it was."""

from __future__ import annotations

import importlib
from enum import StrEnum

import pytest

from niwa import engine
from niwa.engine.testing.checks import every_state

BUILT_IN = ("blossom", "bonsai", "miyabi", "sakura")
PHASE = "phase"


def _phase(name: str) -> type[StrEnum]:
    module = importlib.import_module(f"niwa.engine.rulesets.{name}.actions")
    phase: type[StrEnum] = module.Phase
    return phase


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_phase_a_playout_reaches_is_a_member_of_the_games_phase_enum(name: str) -> None:
    phase = _phase(name)
    game = engine.load(name)
    states = every_state(game, game.info.max_players, seed=3)
    seen = {str(getattr(s, PHASE)) for s in states}  # ``phase`` is no part of State's API
    assert seen <= {p.value for p in phase}
