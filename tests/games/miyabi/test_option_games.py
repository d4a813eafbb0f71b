"""Whole random games under non-default options: they end, round-trip and stay legal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from niwa.engine import CHANCE, sample_chance
from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.rules import TYPES

VARIANTS: dict[str, dict[str, Any]] = {
    "variants-and-at-least": {
        "colorfulGarden": True,
        "bigMeadow": True,
        "bonusLayerMode": "atLeast",
        "majorityTieFirst": "split",
        "majorityTieSecond": "none",
    },
    "other-object-cells-no-rotation": {
        "objectCell.straight": "middle",
        "objectCell.corner": "end",
        "allowRotation": False,
        "maxLayer": 3,
    },
    "forced-play-and-covered-count": {
        "voluntaryPass": False,
        "coveredObjectsCount": True,
        "majorityMinObjects": 0,
        "majorityTieFirst": "allFirstThenSecond",
    },
}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_random_game_with_these_options_plays_to_a_consistent_end(
    name: str, players: int
) -> None:
    state = GAME.new_game(players, VARIANTS[name])
    rng = random.Random(f"{name}{players}")
    while not state.is_over():
        snapshot = json.loads(json.dumps(state.to_json()))
        assert GAME.from_json(snapshot).to_json() == state.to_json()
        seat = state.to_move()[0]
        if seat == CHANCE:
            state.apply({CHANCE: sample_chance(state, rng)})
        else:
            state.apply({seat: rng.choice(state.legal_actions(seat))})
    result = state.result()
    assert list(result.scores) == [g.score for g in state.gardens]
    variants = {"colorfulGarden": "colorful_garden", "bigMeadow": "big_meadow"}
    headings = set(TYPES) | {h for v, h in variants.items() if VARIANTS[name].get(v)}
    assert all(set(g.end) == headings for g in state.gardens)
    assert min(result.places) == 0
