"""Goals judged from a bonsai's kept levels (growth.py) agree with a rescan of the tree."""

from __future__ import annotations

import pytest

from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.rules import GOALS
from niwa.engine.rulesets.bonsai.scoring import goals_met, goals_met_by
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.testing.checks import every_state


@pytest.mark.parametrize("players", [1, 3])
def test_every_goal_met_by_the_kept_levels_is_met_by_a_rescan_and_no_other(players: int) -> None:
    goals = list(GOALS.values())
    seen_met = 0
    for seed in range(4):
        for s in every_state(GAME, players, seed, {"allowPotFlip": True}):
            assert isinstance(s, BonsaiState)
            for me in s.seats:
                met = goals_met_by(list(GOALS), me.growth())
                assert met == [g.id for g in goals_met(goals, me.tree, me.flipped)]
                seen_met += len(met)
    assert seen_met  # the games reached some goals, so both sides were tried
