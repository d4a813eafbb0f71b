"""``builtin:mcts``: information-set Monte Carlo tree search (``niwa.bots.search``) on a clock.

It searches until a safe fraction of the time it was given and never longer: by default
70 % of the per-decision time, and never more than a tenth of what is left on its clock
(bank included), less a fixed margin for the transport. ``iterations`` or ``seconds``
fix the effort instead (e.g. for reproducible tests): on the command line
``builtin:mcts?iterations=200`` or ``builtin:mcts?seconds=0.05``. A fixed ``seconds`` is
still capped by the clock, so it never times out either. ``eval=learned`` values the
leaves with the game's learned value (niwa.bots.learned) instead of its heuristic:
``builtin:mcts?eval=learned&seconds=0.05``.
"""

from __future__ import annotations

import json
import math
import random

from niwa import engine
from niwa.bots import heuristics, learned
from niwa.bots.sdk import GameStart, Reply, Thinking, Turn
from niwa.bots.search import ISMCTS, RootView, SearchLimits

#: Share of the per-decision time used, and of the whole clock at most.
DECISION_SHARE = 0.7
CLOCK_SHARE = 0.1
#: Kept back for the gRPC round trip and process scheduling.
MARGIN_S = 0.02
DEFAULT_SECONDS = 0.1
#: the leaf evaluations: the game's heuristic hook, or its learned value
EVALUATIONS = ("heuristic", "learned")


class MctsBot:
    name = "mcts"
    version = "1"

    def __init__(
        self, iterations: int | None = None, seconds: float | None = None, value: str = "heuristic"
    ) -> None:
        self.iterations = iterations
        self.seconds = seconds
        self.value = value
        self.search: ISMCTS | None = None
        self.per_decision_s = DEFAULT_SECONDS / DECISION_SHARE
        self.seed = 0

    @classmethod
    def from_options(cls, options: dict[str, str]) -> MctsBot:
        """``iterations=N`` (a whole number above 0) or ``seconds=S`` (above 0), and
        ``eval=heuristic`` (the default) or ``eval=learned`` (niwa.bots.learned)."""
        unknown = sorted(set(options) - {"iterations", "seconds", "eval"})
        if unknown:
            raise ValueError(
                f"builtin:mcts has no option {unknown[0]!r}; its options: iterations, "
                "seconds, eval"
            )
        value = options.get("eval", "heuristic")
        if value not in EVALUATIONS:
            raise ValueError(
                f"builtin:mcts option eval={value!r}: give eval=heuristic or eval=learned"
            )
        effort = {k: v for k, v in options.items() if k != "eval"}
        if len(effort) > 1:
            raise ValueError("builtin:mcts takes iterations or seconds, not both")
        if not effort:
            return cls(value=value)
        try:
            if "iterations" in effort:
                iterations = int(effort["iterations"])
                if iterations < 1:
                    raise ValueError
                return cls(iterations=iterations, value=value)
            seconds = float(effort["seconds"])
            if not 0 < seconds < math.inf:
                raise ValueError
            return cls(seconds=seconds, value=value)
        except ValueError:
            key, number = next(iter(effort.items()))
            raise ValueError(
                f"builtin:mcts option {key}={number!r} must be a number above 0, "
                f"e.g. mcts?iterations=200 or mcts?seconds=0.05"
            ) from None

    def start(self, game: GameStart) -> None:
        g = engine.load(game.game)
        evaluate: heuristics.Evaluation | None
        if self.value == "learned":
            evaluate = learned.evaluation(game.game, game.players)
        else:
            evaluate = heuristics.for_game(game.game)
        self.search = ISMCTS(g, evaluate)
        if game.per_decision_ms > 0:
            self.per_decision_s = game.per_decision_ms / 1000
        self.seed = game.seed

    def budget(self, time_left_ms: int) -> float:
        """Seconds to search for one decision."""
        clock = time_left_ms / 1000 * CLOCK_SHARE
        if self.seconds is not None:
            return max(min(self.seconds, clock - MARGIN_S), 0.001)
        share = min(self.per_decision_s * DECISION_SHARE, clock)
        return max(share - MARGIN_S, 0.001)

    def act(self, turn: Turn) -> Reply:
        assert self.search is not None, "start() was not called"
        self.search.rng = random.Random(f"{self.seed}/{turn.seed}/{turn.decision}")
        limits = SearchLimits(
            iterations=self.iterations,
            seconds=None if self.iterations is not None else self.budget(turn.time_left_ms),
        )
        index, stats = self.search.choose(turn.observation, turn.seat, turn.legal_actions, limits)
        note = f"{stats['iterations']} iterations"
        if "value" in stats:
            note += f", value {stats['value']:.2f}"
        return Reply(index=index, note=note, thinking=thinking(self.search.root_view))


def thinking(view: RootView) -> Thinking:
    """The search's root as the viewer draws it: each legal action's share of the
    visits, each seat's mean value over the walks (within [0, 1], as the protocol
    asks), and the principal variation."""
    return Thinking(
        shares=view.shares, values=[min(max(v, 0.0), 1.0) for v in view.values],
        pv=[json.loads(key) for key in view.pv],
    )  # fmt: skip
