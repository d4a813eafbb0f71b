"""Miyabi evaluation: points banked, the majorities as they stand, and moves still open.

What it values and why:
* **Score** is what wins (miyabi.md §7); placement points and bonuses are banked at once.
* **The end-game majorities as they stand now** (the engine's own §6.3 scoring of the
  visible objects), weighted from 40 % in the first round to 100 % in the last: early
  majorities are easy to overturn, late ones are nearly settled.
* **The tile just taken** (during its owner's place step): the points of its best
  placement (objects × highest layer it can reach), so taking a tile is valued by what it
  will score, not as nothing.
* **Turns still open this round**: each empty lantern field of a seat that has not passed
  is one more placement (about 3 points; less when the middle is nearly empty), which is
  what passing gives up.
Nothing in Miyabi is hidden. The difference between seats is turned into [0, 1] values
with a logistic of scale 10 points (one first-place majority).
"""

from __future__ import annotations

from niwa.engine import State
from niwa.engine.evaluation import Memo, relative_values
from niwa.engine.rulesets.miyabi.rules import Rules
from niwa.engine.rulesets.miyabi.scoring import end_scoring, placement_points
from niwa.engine.rulesets.miyabi.state import PLACE, MiyabiState

EARLY_MAJORITY_WEIGHT = 0.4
OPEN_TURN_POINTS = 3.0
SCALE = 10.0


def evaluate(state: State) -> list[float]:
    assert isinstance(state, MiyabiState)
    if state.phase == "over":
        return relative_values([float(g.score) for g in state.gardens], SCALE)
    rules = state.rules
    progress = (state.round - 1) / max(rules.rounds - 1, 1)
    weight = EARLY_MAJORITY_WEIGHT + (1 - EARLY_MAJORITY_WEIGHT) * progress
    majorities = _end_points(rules, state)
    tiles_left = sum(state.display)
    strength = []
    for seat, g in enumerate(state.gardens):
        value = g.score + weight * majorities[seat]
        if state.phase == PLACE and seat == state.current:
            # open_spots are placements as tuples; index 3 is the layer
            layer = max((spot[3] for spot in g.open_spots(rules, state.chosen)), default=0)
            value += placement_points(state.chosen, layer)
        if not g.passed:
            open_fields = g.lanterns.count(False)  # bools: the fields not lit
            value += OPEN_TURN_POINTS * min(open_fields, tiles_left / state.players)
        strength.append(value)
    return relative_values(strength, SCALE)


#: The end-game points as they stand, per rules and gardens. A garden is its tiles in
#: the order placed; the rules object is kept in the value, so its id is not reused.
_END_POINTS: Memo[tuple[object, ...], tuple[Rules, list[int]]] = Memo()


def _end_points(rules: Rules, state: MiyabiState) -> list[int]:
    """Each seat's end-game majorities (and variant) points if the game ended now: the
    same gardens come back at every sibling of a take and in many iterations."""
    key: tuple[object, ...] = (id(rules), *(tuple(g.tiles) for g in state.gardens))
    return _END_POINTS.get(key, lambda: (rules, [
        sum(points.values()) for points in end_scoring(rules, state.gardens)
    ]))[1]
