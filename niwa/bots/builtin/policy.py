"""``builtin:policy``: the learned value network played directly, without search.

It is ``builtin:greedy`` with the game's learned value (niwa.bots.learned, trained by
``niwa train value GAME``) in place of the game's heuristic: each legal action is applied
to a determinization of what the seat saw, and the position after it is valued by the
network (an expectation over the first chance outcome where the action leads to one).
"""

from __future__ import annotations

from niwa import engine
from niwa.bots import learned
from niwa.bots.builtin.greedy import GreedyBot
from niwa.bots.sdk import GameStart


class PolicyBot(GreedyBot):
    name = "policy"
    version = "1"

    @classmethod
    def plays(cls, game: str) -> bool:
        """Only a game with a learned value (shipped, or in NIWA_VALUE_DIR)."""
        try:
            learned.weights_for(game)
        except learned.NoLearnedValue:
            return False
        return True

    def start(self, game: GameStart) -> None:
        self.game = engine.load(game.game)
        self.evaluate = learned.evaluation(game.game, game.players)
