"""``niwa bench engine --snapshots``: what one snapshot (``state.to_json()``), one
observation (``state.observe(0)``) and one ``engine.state_hash`` cost early in a game
and late, per call: whether they stay flat as the table fills up.

Two ways, on one random game per seed (the same seed plays the same game in any
checkout whose rules consume chance alike, so a baseline is timed on the very same
states; the late state's hash is reported to show it):

* ``same state``: many calls on the state after 10 applies (early) and on the last
  state before the end (late); what a state keeps between calls is reused.
* ``in play``: one call after every apply as the game is played, as a referee would
  ask (whatever an apply changed is made again); the mean of the calls after applies
  11 to 60 (early) and of the last 50 (late), over several plays of the game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, Final

from niwa import engine
from niwa.engine import CHANCE, State

#: What is timed, by the name the tables give it.
CALLS: Final[dict[str, Callable[[State], object]]] = {
    "to_json": lambda s: s.to_json(),
    "observe": lambda s: s.observe(0),
    "hash": engine.state_hash,
}

#: Applies played before the early state is taken.
EARLY_AFTER: Final = 10
#: Calls averaged at each end of a game ``in play``.
WINDOW: Final = 50


def _play(name: str, players: int, seed: int,
          after_apply: Callable[[State], None]) -> None:
    """One random game; ``after_apply`` sees the state after every apply."""
    rng = random.Random(seed)
    state = engine.load(name).new_game(players, {})
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
        after_apply(state)


def early_and_late(name: str, players: int, seed: int) -> tuple[State, State]:
    """Copies of the state after :data:`EARLY_AFTER` applies of a random game and of
    its last state before the end."""
    states: list[State] = []

    def keep(state: State) -> None:
        if not state.is_over():
            states.append(state.clone())

    _play(name, players, seed, keep)
    return states[min(EARLY_AFTER, len(states)) - 1], states[-1]


def in_play_us(name: str, players: int, seed: int, call: Callable[[State], object],
               plays: int, clock: Callable[[], float]) -> tuple[float, float]:
    """µs per call of ``call`` made after every apply of the game, as it is played:
    the mean over the calls after applies 11 to 60, and over the last :data:`WINDOW`
    calls before the end, over ``plays`` plays."""
    early: list[float] = []
    late: list[float] = []
    for _ in range(plays):
        times = _timed_in_play(name, players, seed, call, clock)
        # a game too short for the windows is timed from its start
        early += times[EARLY_AFTER:][:WINDOW] or times[:WINDOW]
        late += times[-WINDOW:]
    return sum(early) / len(early) * 1e6, sum(late) / len(late) * 1e6


def _timed_in_play(name: str, players: int, seed: int, call: Callable[[State], object],
                   clock: Callable[[], float]) -> list[float]:
    """Seconds of each call of ``call`` after an apply, in one play of the game."""
    times: list[float] = []

    def timed(state: State) -> None:
        if not state.is_over():
            start = clock()
            call(state)
            times.append(clock() - start)

    _play(name, players, seed, timed)
    return times


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
    """Per timed call and way (``same state``, ``in play``) a row: early and late µs,
    the growth, the snapshot's size in canonical JSON at both states, and the late
    state's hash."""
    early, late = early_and_late(name, players, seed)
    sizes = [len(engine.canonical_json(s.to_json()).encode()) for s in (early, late)]
    common = {"game": name, "players": players, "early_bytes": sizes[0],
              "late_bytes": sizes[1], "late_hash": engine.state_hash(late)}
    rows = []
    for what, fn in CALLS.items():
        same = [per_call_us(functools.partial(fn, s), calls, clock) for s in (early, late)]
        # about as many calls in play as on the same state, whole games at a time
        played = in_play_us(name, players, seed, fn, max(1, calls // (2 * WINDOW)), clock)
        for way, (at_early, at_late) in (("same state", same), ("in play", played)):
            rows.append({**common, "what": what, "way": way, "early_us": at_early,
                         "late_us": at_late, "growth": at_late / at_early})
    return rows
