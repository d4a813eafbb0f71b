"""Ask a built-in bot one question about a scripted state, as the referee would."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from niwa import engine
from niwa.bots.sdk import GameStart, Turn, as_reply
from niwa.engine import CHANCE, State


def ask(bot: Any, game: str, state: State, seat: int, players: int = 2, seed: int = 7) -> Any:
    """The action ``bot`` plays for ``seat`` in ``state`` (after a fresh ``start``)."""
    bot.start(GameStart(game, f"{game}@1", seat, players, {}, 1000, 10_000, seed))
    legal = state.legal_actions(seat)
    reply = as_reply(bot.act(Turn(0, seat, state.observe(seat), legal, 11_000, seed)))
    assert reply.index is not None
    return legal[reply.index]


def random_game(name: str, players: int, seed: int) -> Iterator[State]:
    """Every decision point of one seeded random game, then its end."""
    state = engine.load(name).new_game(players, {})
    rng = random.Random(seed)
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
            continue
        yield state
        state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
    yield state
