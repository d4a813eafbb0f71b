"""Per-game position evaluations for the built-in bots (greedy and MCTS leaves).

An evaluation maps a full state (for a searching bot: a determinization of what it saw)
to a value in [0, 1] per seat. Each game's module documents what it values and why.
A game without one is searched with playouts to the end.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from niwa.engine import State

#: A heuristic: the value of a position for every seat, each in [0, 1].
Evaluation = Callable[[State], list[float]]

#: game name -> module with ``evaluate(state) -> list[float]``
MODULES = {
    "blossom": "niwa.bots.heuristics.blossom",
    "bonsai": "niwa.bots.heuristics.bonsai",
    "miyabi": "niwa.bots.heuristics.miyabi",
    "sakura": "niwa.bots.heuristics.sakura",
}


def for_game(name: str) -> Evaluation | None:
    module = MODULES.get(name)
    if module is None:
        return None
    fn: Evaluation = importlib.import_module(module).evaluate
    return fn


def blind_to_chance(name: str, evaluate: Evaluation | None) -> Callable[[State], bool] | None:
    """Where ``evaluate`` is ``name``'s own evaluation and its module says which pending
    chance outcomes cannot change its value (``blind_to_chance(state)``, e.g. Sakura's
    draws: cards into hands, which it does not read), that test: a search then values
    such a position as it stands instead of drawing the outcomes first."""
    module = MODULES.get(name)
    if module is None or evaluate is None:
        return None
    loaded = importlib.import_module(module)
    if evaluate is not getattr(loaded, "evaluate", None):
        return None
    blind: Callable[[State], bool] | None = getattr(loaded, "blind_to_chance", None)
    return blind


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Parts of an evaluation that repeat across one search (the seats that did not
    move, the sibling positions a node's seeding values), kept by a key of what they
    depend on. Bounded: emptied when full, so a long match does not grow it."""

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self.table: dict[K, V] = {}

    def get(self, key: K, make: Callable[[], V]) -> V:
        value = self.table.get(key)
        if value is None:
            if len(self.table) >= self.limit:
                self.table.clear()
            value = self.table[key] = make()
        return value


def relative_values(strength: Sequence[float], scale: float) -> list[float]:
    """Turn per-seat strengths into [0, 1] values: the mean chance, by a logistic of the
    difference, of being ahead of each other seat (0.5 each when level). One seat alone
    is valued by a logistic of its strength against ``scale``.

    The logistic of a difference is ``e_a / (e_a + e_b)`` with ``e = exp(strength /
    scale)``: one exponential per seat instead of one per pair (taken from the
    strongest seat down, and floored, so none overflows or vanishes)."""
    n = len(strength)
    if n == 1:
        return [1 / (1 + math.exp(-strength[0] / scale))]
    if n == 2:
        first = 1 / (1 + math.exp((strength[1] - strength[0]) / scale))
        return [first, 1 - first]
    top = max(strength)
    exp = math.exp
    weights = []
    for s in strength:  # a plain loop, no max() call: the exponents cost more than the pairs
        x = (s - top) / scale
        weights.append(exp(_FLOOR if x < _FLOOR else x))  # max(x, _FLOOR), NaN and all
    if n == 3:  # written out: the loops' sums in the loops' order, so the same floats
        a, b, c = weights
        return [(-0.5 + a / (a + a) + a / (a + b) + a / (a + c)) / 2,
                (-0.5 + b / (b + a) + b / (b + b) + b / (b + c)) / 2,
                (-0.5 + c / (c + a) + c / (c + b) + c / (c + c)) / 2]
    if n == 4:
        a, b, c, d = weights
        return [(-0.5 + a / (a + a) + a / (a + b) + a / (a + c) + a / (a + d)) / 3,
                (-0.5 + b / (b + a) + b / (b + b) + b / (b + c) + b / (b + d)) / 3,
                (-0.5 + c / (c + a) + c / (c + b) + c / (c + c) + c / (c + d)) / 3,
                (-0.5 + d / (d + a) + d / (d + b) + d / (d + c) + d / (d + d)) / 3]
    out = []
    for a in weights:  # plain loops: cheaper than generator sums at these sizes
        total = -0.5  # the seat against itself (a / 2a), taken back out
        for b in weights:
            total += a / (a + b)
        out.append(total / (n - 1))
    return out


#: Exponents below this are raised to it: exp(-700) is still a normal float.
_FLOOR = -700.0
