"""``builtin:greedy``: the action whose resulting position the game's heuristic likes best.

One decision of lookahead. The bot rebuilds a full state from what it saw
(``determinize``; the heuristics only read what the seat can see, so the sample does not
matter to them), applies each legal action to a copy, and values the result with
``niwa.bots.heuristics``. Where the action leads to chance (a card drawn), the value is the
expectation over the first chance outcome, the outcomes' own probabilities weighting it.
Simultaneous decisions assume the other seats play at random. Ties are broken by the
decision's own seeded generator, so the bot is reproducible.
"""

from __future__ import annotations

import random

from niwa import engine
from niwa.bots import heuristics
from niwa.bots.heuristics import Evaluation
from niwa.bots.sdk import GameStart, Reply, Turn
from niwa.bots.search import terminal_values
from niwa.engine import CHANCE, Game, State


class GreedyBot:
    name = "greedy"
    version = "1"

    @classmethod
    def plays(cls, game: str) -> bool:
        """Only a game with a heuristic: it is what the bot values positions by."""
        return heuristics.for_game(game) is not None

    def __init__(self) -> None:
        self.game: Game | None = None
        self.evaluate: Evaluation | None = None

    def start(self, game: GameStart) -> None:
        self.game = engine.load(game.game)
        self.evaluate = heuristics.for_game(game.game)
        if self.evaluate is None:
            raise RuntimeError(
                f"builtin:greedy has no evaluation for {game.game!r}: the game has no "
                "heuristic hook (Game.heuristic); play builtin:mcts, which uses playouts"
            )

    def act(self, turn: Turn) -> Reply:
        assert self.game is not None and self.evaluate is not None, "start() was not called"
        rng = turn.rng()
        if len(turn.legal_actions) == 1:
            return Reply(index=0)
        state = self.game.determinize(turn.observation, turn.seat, rng)
        best: list[int] = []
        best_value = -1.0
        for i, action in enumerate(turn.legal_actions):
            after = state.clone()
            joint = {
                s: rng.choice(after.legal_actions(s)) for s in after.to_move() if s != turn.seat
            }
            joint[turn.seat] = action
            after.apply(joint)
            value = self._value(after, turn.seat, rng)
            if value > best_value + 1e-12:
                best, best_value = [i], value
            elif abs(value - best_value) <= 1e-12:
                best.append(i)
        choice = best[rng.randrange(len(best))]
        return Reply(index=choice, note=f"value {best_value:.3f}")

    def _value(self, state: State, seat: int, rng: random.Random) -> float:
        assert self.evaluate is not None
        if state.is_over():
            return terminal_values(state.result())[seat]
        if state.to_move() != (CHANCE,):
            return self.evaluate(state)[seat]
        total = 0.0
        for outcome, p in state.chance_outcomes():
            after = state.clone()
            after.apply({CHANCE: outcome})
            while after.to_move() == (CHANCE,):  # later outcomes of the same event: sampled
                after.apply({CHANCE: engine.sample_chance(after, rng)})
            total += p * (
                terminal_values(after.result())[seat]
                if after.is_over()
                else self.evaluate(after)[seat]
            )
        return total
