"""Per-game position evaluations for the built-in bots (greedy and MCTS leaves).

An evaluation maps a full state (for a searching bot: a determinization of what it saw)
to a value in [0, 1] per seat. Each game's module documents what it values and why.
A game without one is searched with playouts to the end.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence

from bots.search import Evaluation

#: game name -> module with ``evaluate(state) -> list[float]``
MODULES = {
    "blossom": "bots.heuristics.blossom",
    "bonsai": "bots.heuristics.bonsai",
    "miyabi": "bots.heuristics.miyabi",
    "sakura": "bots.heuristics.sakura",
}


def for_game(name: str) -> Evaluation | None:
    module = MODULES.get(name)
    if module is None:
        return None
    fn: Evaluation = importlib.import_module(module).evaluate
    return fn


def relative_values(strength: Sequence[float], scale: float) -> list[float]:
    """Turn per-seat strengths into [0, 1] values: the mean chance, by a logistic of the
    difference, of being ahead of each other seat (0.5 each when level). One seat alone
    is valued by a logistic of its strength against ``scale``."""
    n = len(strength)
    if n == 1:
        return [1 / (1 + math.exp(-strength[0] / scale))]
    out = []
    for s in range(n):
        total = sum(
            1 / (1 + math.exp(-(strength[s] - strength[o]) / scale)) for o in range(n) if o != s
        )
        out.append(total / (n - 1))
    return out
