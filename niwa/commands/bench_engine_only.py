"""The engine's own time for a recorded match: the baseline ``niwa bench referee``
subtracts to get what the referee costs outside the engine.

Standalone on purpose (it imports only ``engine`` and ``niwa.referee.replay``), so
a harness can load it by path while timing an older tree.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from niwa import engine
from niwa.referee import replay


def engine_only(path: Path, clock: Callable[[], float]) -> float:
    """Seconds of ``clock`` the engine alone needs to play the match recorded at
    ``path`` again: what the referee must ask of it (who is to move, each mover's legal
    actions, a chance draw) and every ``apply``, then the result."""
    r = replay.read(path)
    game = engine.load(r.header.game)
    options = game.info.validate(r.header.players, r.header.options)
    rng = random.Random(0)
    t0 = clock()
    state = game.new_game(r.header.players, options)
    for step in r.steps:
        to_move = state.to_move()
        if to_move == (engine.CHANCE,):
            engine.sample_chance(state, rng)
        else:
            for seat in to_move:
                state.legal_actions(seat)
        state.apply(step.joint())
    state.result()
    return clock() - t0


def bots_cpu(path: Path) -> float:
    """Seconds of CPU the bots used in the match recorded at ``path``: the sum of
    every move's ``cpu_ms`` (for an in-process bot, its thread time inside ``act``)."""
    return sum(
        m.cpu_ms for step in replay.read(path).steps for m in step.moves
        if m.cpu_ms is not None
    ) / 1000
