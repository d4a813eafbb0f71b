"""``builtin:random``: a uniformly random legal action, reproducible per decision."""

from __future__ import annotations

from niwa.bots.sdk import Turn


class RandomBot:
    name = "random"
    version = "1"
    keeps_turns = False  # never reads an observation: in process it is never built

    def act(self, turn: Turn) -> int:
        return turn.rng().randrange(len(turn.legal_actions))
