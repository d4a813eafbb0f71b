"""Bonsai evaluation: points on the table, plus tiles, cards and goals still to turn
into points.

What it values and why:
* **The score if the game ended now** (the engine's own bonsai.md §5 breakdown: leaves,
  flowers by free sides, fruit, Parchments, goals claimed), which is what wins.
* **Tiles in the personal supply**, at a third or so of what they score once placed (a
  leaf is worth 3 on the tree; in the supply it still needs a whole Cultivate turn and
  a free cell), and only as many as the seat may keep (bonsai.md §2.3: the rest will be
  discarded). Valuing them higher made greedy meditate every turn and discard. Wood
  scores nothing but carries every leaf, so it is worth a little in the supply and on
  the tree (and counts toward the brown goal).
* **Growth cards and Tools** are worth more the more turns are left (bonsai.md §2.3,
  §2.4): a Growth card is one more placement on every later Cultivate.
* **The placements left this turn** (Cultivate or Helper allowance, for tiles the seat
  holds and that have a legal cell) for the seat placing, each worth what placing adds
  over keeping the tile: without this, choosing Cultivate would look like doing nothing.
* **Open goals**: for each goal colour the seat may still claim, the best open tile's
  points times the square of how far the bonsai has got toward it (bonsai.md §4,
  §6.5); goals are large (5-16 points) and a half-grown one is worth far less than half.
  Kengai (blue) progress is not measured, only claimed.
* **A Master's wild tiles** still to choose count as supply tiles.
Everything here is public (bonsai.md "What is hidden": only the deck order is not). The
difference between seats is turned into [0, 1] values with a logistic of scale 12 points.
"""

from __future__ import annotations

from functools import cache

from niwa.engine import State
from niwa.engine.evaluation import Memo, relative_values
from niwa.engine.rulesets.bonsai.rules import (
    ANY,
    CARD_KINDS,
    FLOWER,
    FRUIT,
    GOALS,
    LEAF,
    WOOD,
    deck_for,
)
from niwa.engine.rulesets.bonsai.scoring import breakdown
from niwa.engine.rulesets.bonsai.seat import Seat
from niwa.engine.rulesets.bonsai.state import PLACING_PHASES, BonsaiState
from niwa.engine.rulesets.bonsai.tree import (
    count,
    flowers_one_side,
    is_stuck,
    largest_leaf_group,
    legal_cells,
)

#: What a tile in the supply is worth, per tile code (wood, leaf, flower, fruit).
SUPPLY_VALUE = (0.5, 1.0, 0.8, 2.0)
#: What placing one more tile of each type still adds over keeping it.
PLACING_GAIN = (1.0, 2.0, 1.5, 5.0)
WOOD_ON_TREE = 0.6
GROWTH_VALUE = 4.0  # at the start of the game; shrinks as the deck runs out
TOOL_VALUE = 1.5
GOAL_PROGRESS_WEIGHT = 0.5
SCALE = 12.0


def evaluate(state: State) -> list[float]:
    assert isinstance(state, BonsaiState)
    if state.phase == "over":
        return relative_values([float(s["total"]) for s in state.scores()], SCALE)
    left = state.deck_size() / _deck_total(state.players)
    goals = tuple(state.goals_open)
    strength = []
    for i, seat in enumerate(state.seats):
        key = (
            tuple(tuple(tree.items()) for tree in seat.trees), seat.active, tuple(seat.flips),
            tuple(seat.supply), tuple(seat.cards), tuple(seat.claimed),
            tuple(seat.renounced), goals, left,
        )
        value = _SEATS.get(key, lambda: _seat_value(state, seat, left))  # noqa: B023
        if i == state.current:
            value += _turn_potential(state, seat)
        strength.append(value)
    return relative_values(strength, SCALE)


#: A seat's value apart from its turn, by everything it depends on: in a search most
#: seats have not moved since the position last evaluated.
_SEATS: Memo[tuple[object, ...], float] = Memo()


def _seat_value(state: BonsaiState, seat: Seat, left: float) -> float:
    """Points now, wood on the tree, the supply, cards by the deck left, goal progress."""
    value = breakdown(seat.trees, seat.cards, seat.claimed)["total"] + WOOD_ON_TREE * count(
        seat.tree, WOOD
    )
    value += _supply_value(seat)
    for card in seat.cards:
        kind = CARD_KINDS[card].type
        if kind == "growth":
            value += GROWTH_VALUE * left
        elif kind == "tool":
            value += TOOL_VALUE * left
    return value + GOAL_PROGRESS_WEIGHT * _goal_progress(state, seat)


@cache
def _deck_total(players: int) -> int:
    return max(sum(deck_for(players).values()), 1)


def _supply_value(seat: Seat) -> float:
    """The supply's tiles, the most valuable first, up to the seat's capacity."""
    room = seat.capacity()
    value = 0.0
    for t in sorted(range(len(SUPPLY_VALUE)), key=lambda t: -SUPPLY_VALUE[t]):
        kept = min(seat.supply[t], room)
        value += kept * SUPPLY_VALUE[t]
        room -= kept
    return value


def _turn_potential(state: BonsaiState, seat: Seat) -> float:
    """Placements still allowed this turn, each worth what placing adds over keeping."""
    value = SUPPLY_VALUE[WOOD] * state.wild_tiles if state.phase == "master" else 0.0
    if state.phase not in PLACING_PHASES:
        return value
    wild = state.allowance[ANY]
    # Wood and leaves grow from wood: either has a cell exactly when the tree is not
    # stuck, which the engine answers at the first free cell instead of listing them all.
    grows: bool | None = None
    for t in (FRUIT, LEAF, FLOWER, WOOD):  # the wild slot goes to the best tile first
        if not seat.supply[t]:
            continue
        if t in (WOOD, LEAF):
            if grows is None:
                grows = not is_stuck(seat.tree, seat.pot)
            if not grows:
                continue
        elif not legal_cells(seat.tree, seat.pot, t):
            continue
        typed = min(seat.supply[t], state.allowance[t])
        extra = min(seat.supply[t] - typed, wild)
        wild -= extra
        value += (typed + extra) * PLACING_GAIN[t]
    return value


def _goal_progress(state: BonsaiState, seat: Seat) -> float:
    held = {GOALS[g].colour for g in seat.claimed}
    best: dict[str, float] = {}
    measures: dict[str, int] = {}
    for goal_id in state.goals_open:
        goal = GOALS[goal_id]
        if goal.colour in held or goal_id in seat.renounced or goal.test.startswith("kengai"):
            continue
        if goal.test not in measures:
            measures[goal.test] = _measure(goal.test, seat)
        share = min(measures[goal.test] / goal.need, 1.0)
        best[goal.colour] = max(best.get(goal.colour, 0.0), goal.points * share * share)
    return sum(best.values())


def _measure(test: str, seat: Seat) -> int:
    if test == "wood":
        return count(seat.tree, WOOD)
    if test == "leafGroup":
        return largest_leaf_group(seat.tree)
    if test == "fruit":
        return count(seat.tree, FRUIT)
    return flowers_one_side(seat.tree, seat.flipped)
