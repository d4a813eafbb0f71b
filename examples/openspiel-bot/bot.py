"""Example bot: OpenSpiel's MCTS (UCT with random rollouts) as a niwa bot.

Each decision imagines the hidden cards a few times (``determinize``), wraps each
imagined table as an OpenSpiel state (``niwa.adapters.openspiel``), runs OpenSpiel's
``MCTSBot`` search on it and adds up the root's visit counts; the most visited action
is played. Perfect-information games (Miyabi, Bonsai) have nothing hidden, so every
determinization is the true table and only the search's own randomness differs. All
randomness comes from ``turn.rng()``: the same question gets the same answer.

Needs ``pip install niwa[rl]``. It runs sandboxed like any bot: the sandbox mounts the
``niwa`` package this bot imports the adapter from, and the Python prefix OpenSpiel is in.
"""

from __future__ import annotations

import collections

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from niwa import engine
from niwa.adapters.openspiel import NiwaState, short_name
from niwa.bots.sdk import GameStart, Reply, Turn, serve

DETERMINIZATIONS = 2
SIMULATIONS = 30  # per determinization
UCT_C = 2.0


class OpenSpielMcts:
    name = "openspiel-mcts"
    version = "1.0.0"

    def __init__(self) -> None:
        self.niwa: engine.Game | None = None
        self.spiel: pyspiel.Game | None = None

    def start(self, game: GameStart) -> None:
        self.niwa = engine.load(game.game)
        self.spiel = pyspiel.load_game(f"{short_name(game.game)}(players={game.players})")

    def act(self, turn: Turn) -> Reply:
        assert self.niwa is not None and self.spiel is not None
        if len(turn.legal_actions) == 1:
            return Reply(index=0, note="forced")
        rng = turn.rng()
        np_rng = np.random.RandomState(rng.randrange(2**31))
        search = mcts.MCTSBot(
            self.spiel,
            UCT_C,
            SIMULATIONS,
            mcts.RandomRolloutEvaluator(1, np_rng),
            random_state=np_rng,
        )
        visits: collections.Counter[int] = collections.Counter()
        for _ in range(DETERMINIZATIONS):
            table = self.niwa.determinize(turn.observation, turn.seat, rng)
            root = search.mcts_search(NiwaState(self.spiel, table))
            for child in root.children:
                visits[child.action] += child.explore_count
        codec = self.spiel.space.actions
        listed = [codec.index(a) for a in turn.legal_actions]
        best = max(range(len(listed)), key=lambda i: visits[listed[i]])
        return Reply(
            index=best,
            note=f"{visits[listed[best]]} of {sum(visits.values())} visits",
        )


if __name__ == "__main__":
    serve(OpenSpielMcts())
