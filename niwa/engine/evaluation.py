"""Helpers for a game's position evaluation (its ``heuristic`` plugin hook): a memo of
parts that repeat across one search, and per-seat strengths turned into [0, 1] values."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

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
