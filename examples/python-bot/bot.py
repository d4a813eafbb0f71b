"""Example bot: flat Monte Carlo, for any niwa game.

For each legal action it imagines the hidden cards (``determinize``), plays the action,
finishes the game at random a few times and keeps the action with the best average
place. All randomness comes from ``turn.rng()``, so the same question always gets the
same answer (``niwa replay ask`` relies on that).
"""

from __future__ import annotations

import random

from niwa import engine
from niwa.bots.sdk import GameStart, Reply, Turn, serve

PLAYOUTS = 48  # total per decision, shared among the legal actions


def playout(state: engine.State, rng: random.Random) -> engine.State:
    while not state.is_over():
        seats = state.to_move()
        if seats == (engine.CHANCE,):
            state.apply({engine.CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
    return state


class FlatMonteCarlo:
    name = "python-example"
    version = "1.0.0"

    def __init__(self) -> None:
        self.game: engine.Game | None = None

    def start(self, game: GameStart) -> None:
        self.game = engine.load(game.game)

    def act(self, turn: Turn) -> Reply:
        assert self.game is not None
        if len(turn.legal_actions) == 1:
            return Reply(index=0, note="forced")
        rng = turn.rng()
        per_action = max(1, PLAYOUTS // len(turn.legal_actions))
        best, best_place = 0, float("inf")
        means: list[tuple[float, str]] = []  # for the debug text
        for i, action in enumerate(turn.legal_actions):
            total = 0
            for _ in range(per_action):
                state = self.game.determinize(turn.observation, turn.seat, rng)
                joint = {s: action if s == turn.seat else rng.choice(state.legal_actions(s))
                         for s in state.to_move()}
                state.apply(joint)
                total += playout(state, rng).result().places[turn.seat]
            mean = total / per_action
            means.append((mean, f"{i:>3} {mean + 1:.2f} {engine.canonical_json(action)}"))
            if mean < best_place:
                best, best_place = i, mean
        # The note is one short line; the debug text (at most 2 KiB, kept in the replay,
        # shown by `niwa replay show --at N` and `niwa play --debug`) holds the details:
        # here the ten best actions with their mean places.
        best_ten = [line for _, line in sorted(means, key=lambda m: m[0])[:10]]
        return Reply(
            index=best,
            note=f"mean place {best_place + 1:.2f} over {per_action} playouts",
            debug="index, mean place, action\n" + "\n".join(best_ten),
        )


if __name__ == "__main__":
    serve(FlatMonteCarlo())
