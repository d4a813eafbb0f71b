"""Random playouts to count instructions with, for docs/benchmarks.md (section "Miyabi and
Sakura: the absolute goals").

CPU seconds move with the load of a shared machine; the instructions a fixed set of
games executes do not. Count them under callgrind for N games and for 0 (start-up), per
tree, and divide the difference by the player decisions printed::

    cd /tmp && PYTHONPATH=TREE valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python /path/to/docs/benchmarks/playout_instructions.py GAME PLAYERS N

It plays ``niwa bench engine``'s loop (random legal moves, chance drawn with
``engine.sample_chance``) from seed 1 and prints ``GAME PLAYERS N decisions chance``.
Only the engine's public names are used, so the same file runs any tree; the same seed
plays the same games in trees whose rules consume chance alike (the counts printed show
it).
"""

from __future__ import annotations

import random
import sys

from niwa import engine


def main(name: str, players: int, games: int) -> None:
    game, rng = engine.load(name), random.Random(1)
    decisions = chance = 0
    for _ in range(games):
        state = game.new_game(players, {})
        while seats := state.to_move():
            if seats == (engine.CHANCE,):
                state.apply({engine.CHANCE: engine.sample_chance(state, rng)})
                chance += 1
            else:
                state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
                decisions += 1
    print(name, players, games, decisions, chance)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
