"""The kept placeability (level masks, last-fitting spot) agrees with a walk over every
footprint's heights, in random games under default and restrictive options."""

from __future__ import annotations

from typing import Any

import pytest

from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.rules import CELLS, NKINDS, SIZE, Rules
from niwa.engine.rulesets.miyabi.state import MiyabiState
from niwa.engine.testing.checks import every_state

OPTIONS: list[dict[str, Any]] = [
    {},
    {"objectCell.straight": "middle", "allowRotation": False, "maxLayer": 3},
]


def _fits_by_walking(g: Garden, rules: Rules, kind: int) -> bool:
    for col in range(SIZE):
        if g.lanterns[col]:
            continue
        for _, cells, _ in rules.fits[kind][col]:
            h = g.heights[cells[0]]
            if all(g.heights[c] == h for c in cells) and not (
                rules.max_layer and h >= rules.max_layer
            ):
                return True
    return False


def _agrees(s: MiyabiState) -> None:
    for g in s.gardens:
        for h, level in enumerate(g.levels):
            assert level == sum(1 << c for c in range(CELLS) if g.heights[c] == h)
        for kind in range(NKINDS):
            walked = _fits_by_walking(g, s.rules, kind)
            assert g.can_place(s.rules, kind) == walked
            assert any(True for _ in g.placements(s.rules, kind)) == walked


@pytest.mark.parametrize("options", OPTIONS, ids=["defaults", "restrictive"])
def test_can_place_equals_a_full_walk_after_every_move_of_random_games(
    options: dict[str, Any],
) -> None:
    for players in (2, 4):
        for s in every_state(GAME, players, 7, options):
            assert isinstance(s, MiyabiState)
            _agrees(s)

