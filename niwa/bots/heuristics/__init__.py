"""Position evaluations for the built-in bots (greedy and MCTS leaves), found through
the game's ``heuristic`` plugin hook (niwa.engine.api.Game).

An evaluation maps a full state (for a searching bot: a determinization of what it saw)
to a value in [0, 1] per seat. A game without one is searched with playouts to the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from niwa.engine import registry
from niwa.engine.api import ChanceTest, Evaluation, State
from niwa.engine.evaluation import Memo, relative_values

__all__ = [
    "BatchEvaluation", "Evaluation", "Memo", "blind_to_chance", "for_game", "relative_values",
]  # fmt: skip


@runtime_checkable
class BatchEvaluation(Protocol):
    """An evaluation that also values many states in one call (a learned value: one
    matrix product for all of them), as calling it on each would, to rounding."""

    def __call__(self, state: State) -> list[float]: ...

    def many(self, states: Sequence[State]) -> list[list[float]]: ...


def for_game(name: str) -> Evaluation | None:
    """The registered game ``name``'s own evaluation, or None (playouts)."""
    return registry.load(name).heuristic()


def blind_to_chance(name: str, evaluate: Evaluation | None) -> ChanceTest | None:
    """Where ``evaluate`` is ``name``'s own evaluation and the game says which pending
    chance outcomes cannot change its value (e.g. Sakura's draws: cards into hands,
    which it does not read), that test: a search then values such a position as it
    stands instead of drawing the outcomes first."""
    game = registry.load(name)
    if evaluate is None or evaluate is not game.heuristic():
        return None
    return game.blind_to_chance()
