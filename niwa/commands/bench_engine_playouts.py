"""Random playouts timed per second: what ``niwa bench engine`` measures.

Standalone on purpose (it imports only the standard library and ``engine``), so
``bench_tree`` can load it by path in a process whose ``engine`` is another checkout's:
both sides of a ``--baseline`` comparison are then timed by this same loop.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Final

from niwa import engine

#: What ``--clock`` may count seconds with.
CLOCKS: Final = {"wall": time.perf_counter, "cpu": time.process_time}

@dataclass(frozen=True)
class Rate:
    """One run's counts per second of the clock."""

    games: float
    decisions: float
    chance: float

    @property
    def applies(self) -> float:
        return self.decisions + self.chance


def one_game(state: Any, rng: random.Random) -> tuple[int, int]:
    """Play to the end; (player decisions, chance applies)."""
    chance_seat = engine.CHANCE
    decisions = chance = 0
    while True:
        seats = state.to_move()
        if not seats:
            return decisions, chance
        if seats == (chance_seat,):
            state.apply({chance_seat: engine.sample_chance(state, rng)})
            chance += 1
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
            decisions += 1


def measure(game: Any, players: int, seconds: float, seed: int, clock: str = "wall") -> Rate:
    """Counts per second of ``clock`` over one run of about ``seconds`` of ``game``
    (an ``engine.Game``)."""
    rng = random.Random(seed)
    now = CLOCKS[clock]
    games = decisions = chance = 0
    start = now()
    while True:
        d, c = one_game(game.new_game(players, {}), rng)
        games, decisions, chance = games + 1, decisions + d, chance + c
        elapsed = now() - start
        if elapsed >= seconds:
            return Rate(games / elapsed, decisions / elapsed, chance / elapsed)
