"""deck.draw picks the card State.sample_chance's float walk picks, near the edges too."""

from __future__ import annotations

import math
import random
from itertools import accumulate

from niwa.engine import CHANCE, State
from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.deck import draw
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.testing.checks import every_state
from tests.games.fixed_rng import FixedRng


def _edges(pool: dict[str, int]) -> list[float]:
    """Every r that puts ``r * deck size`` on a card boundary, and its float neighbours."""
    total = sum(pool.values())
    edges = [0.0, math.nextafter(1.0, 0.0)]
    for c in accumulate(pool.values()):
        r = c / total
        edges += [math.nextafter(r, 0.0), r, math.nextafter(r, 1.0)]
    return [r for r in edges if 0.0 <= r < 1.0]


def test_a_draw_takes_the_walks_card_on_and_beside_every_boundary_and_at_random() -> None:
    rng = random.Random(7)
    pools = 0
    for players, seed in [(1, 0), (2, 1), (4, 2)]:
        for s in every_state(GAME, players, seed):
            assert isinstance(s, BonsaiState)
            if s.to_move() != (CHANCE,) or s.phase != "reveal":
                continue
            pools += 1
            for r in _edges(s.pool) + [rng.random() for _ in range(50)]:
                walked = State.sample_chance(s, FixedRng(r))
                assert s.sample_chance(FixedRng(r)) == walked, (s.pool, r)
                assert {"type": "reveal", "card": draw(s.pool, r)} == walked
    assert pools > 20
