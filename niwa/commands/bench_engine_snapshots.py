"""``niwa bench engine --snapshots``: what one snapshot (``state.to_json()``), one
observation (``state.observe(0)``) and one ``engine.state_hash`` cost early in a game
and late, per call: whether they stay flat as the table fills up.

Both states come from one random game per seed: ``early`` after 10 applies, ``late``
the last state before the end. The same seed plays the same game in any checkout whose
rules consume chance alike, so a baseline is timed on the very same states (the late
state's hash is reported to show it).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, Final

import engine
from engine import CHANCE, State

#: What is timed, by the name the tables give it.
CALLS: Final[dict[str, Callable[[State], object]]] = {
    "to_json": lambda s: s.to_json(),
    "observe": lambda s: s.observe(0),
    "hash": engine.state_hash,
}

#: Applies played before the early state is taken.
EARLY_AFTER: Final = 10


def early_and_late(name: str, players: int, seed: int) -> tuple[State, State]:
    """The state after :data:`EARLY_AFTER` applies of a random game and its last state
    before the end."""
    rng = random.Random(seed)
    state = engine.load(name).new_game(players, {})
    early = last = state.clone()
    applies = 0
    while True:
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
        applies += 1
        if applies == EARLY_AFTER:
            early = state.clone()
        if state.is_over():
            return early, last
        last = state.clone()


def per_call_us(call: Callable[[], object], calls: int, clock: Callable[[], float]) -> float:
    """µs of ``clock`` per call over ``calls`` calls, after a tenth as many untimed ones
    (the first call may make what later calls keep)."""
    for _ in range(max(1, calls // 10)):
        call()
    start = clock()
    for _ in range(calls):
        call()
    return (clock() - start) / calls * 1e6


def measure(name: str, players: int, seed: int, calls: int,
            clock: Callable[[], float]) -> list[dict[str, Any]]:
    """One row per timed call: early and late µs, the growth, the snapshot's size in
    canonical JSON at both states, and the late state's hash."""
    early, late = early_and_late(name, players, seed)
    sizes = [len(engine.canonical_json(s.to_json()).encode()) for s in (early, late)]
    rows = []
    for what, fn in CALLS.items():
        at = [per_call_us(functools.partial(fn, s), calls, clock) for s in (early, late)]
        rows.append({"game": name, "players": players, "what": what, "early_us": at[0],
                     "late_us": at[1], "growth": at[1] / at[0], "early_bytes": sizes[0],
                     "late_bytes": sizes[1], "late_hash": engine.state_hash(late)})
    return rows
