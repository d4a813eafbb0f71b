"""Random playouts of every registered game at every player count, for the adapters'
tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

import engine
from engine.registry import games, load

#: (game, players) for every registered game and player count.
TABLES = [
    (name, n)
    for name in games()
    for n in range(load(name).info.min_players, load(name).info.max_players + 1)
]


def playout(game: str, players: int, seed: int) -> Iterator[engine.State]:
    """Every state of one random game, the last one over."""
    rng = random.Random(seed)
    state = load(game).new_game(players)
    while True:
        yield state
        seats = state.to_move()
        if not seats:
            return
        if seats == (engine.CHANCE,):
            state.apply({engine.CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
