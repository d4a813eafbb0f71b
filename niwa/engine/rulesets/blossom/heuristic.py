"""Blossom evaluation: points banked, plus what the face-up yard could score next.

What it values and why:
* **Score** is what wins (blossom.md §9).
* **The best arrange now open** to each seat (its face-up kind with the highest
  value × count, by the real §6 values at this moment), at 60 %: those points are
  one action away but the table will change before that seat acts.
* **Face-down yard cards and hand cards** at 2 points each: material for later
  arranges (hand cards cost an action to play; face-down ones one flip).
The difference between seats is turned into a [0, 1] value per seat with a logistic of
scale 12 points (about two typical arranges).
"""

from __future__ import annotations

from niwa.engine import State
from niwa.engine.evaluation import relative_values
from niwa.engine.rulesets.blossom.rules import CHERRY, CHERRY_POINTS, KINDS, LILY
from niwa.engine.rulesets.blossom.scoring import arrange_points
from niwa.engine.rulesets.blossom.state import BlossomState

POTENTIAL_WEIGHT = 0.6
CARD_WEIGHT = 2.0
SCALE = 12.0
#: Every kind but the cherry, whose arrange moves one card whatever the count.
OTHER_KINDS = tuple(k for k in range(len(KINDS)) if k != CHERRY)


def flower_values(ups: list[list[int]], downs: list[int], garden: list[int]) -> list[int]:
    """Every kind's value by blossom.md §6, as the engine's ``flower_value`` gives it kind
    by kind, from the table's totals summed once (the engine's sums them again for each
    kind: a fifth of an evaluation)."""
    up = lilies = 0
    for yard in ups:
        up += sum(yard)
        lilies += yard[LILY]
    down = sum(downs)
    # in KINDS order: cherry, chrysanthemum, camellia, rose, lily, anemone (rules.py
    # asserts that order)
    return [
        CHERRY_POINTS,
        7 if up > down else 2,
        4 * (down // 2),
        2 + len(garden) - garden.count(0),  # the kinds in the garden
        2 * lilies + garden[LILY],
        2 * ((up + sum(garden)) // 4),
    ]


def evaluate(state: State) -> list[float]:
    assert isinstance(state, BlossomState)
    downs = [sum(d) for d in state.downs]
    # A kind's value is the same for every seat: worked out once.
    values = flower_values(state.ups, downs, state.garden)
    cherry = arrange_points(values[CHERRY], 1)  # an arrange moves one cherry
    scores, hands = state.scores, state.hands
    strength = []
    for s, up in enumerate(state.ups):
        best = cherry if up[CHERRY] else 0
        for k in OTHER_KINDS:
            count = up[k]
            if count:
                points = arrange_points(values[k], count)
                if points > best:
                    best = points
        material = CARD_WEIGHT * (downs[s] + sum(hands[s]))
        strength.append(scores[s] + POTENTIAL_WEIGHT * best + material)
    return relative_values(strength, SCALE)
