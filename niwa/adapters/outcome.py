"""What the adapters share: rewards from a result, and chance resolved from a generator."""

from __future__ import annotations

from niwa.engine.api import CHANCE, Result, Rng, State

#: The bounds of :func:`rewards`: -1..1 with several seats; a solo game pays its score,
#: bounded here generously (no registered solo game scores beyond it).
SOLO_BOUND = 1000.0


def rewards(result: Result) -> list[float]:
    """Each seat's reward: with several seats, the mean over the other seats of +1 for
    a better place, -1 for a worse one and 0 for a tie (zero-sum; a 2-player win is
    +1); with one seat, its score."""
    places = result.places
    n = len(places)
    if n == 1:
        return [float(result.scores[0])]
    return [
        sum((o > p) - (o < p) for j, o in enumerate(places) if j != s) / (n - 1)
        for s, p in enumerate(places)
    ]


def reward_range(players: int) -> tuple[float, float]:
    """The bounds of :func:`rewards` at ``players`` seats."""
    return (-SOLO_BOUND, SOLO_BOUND) if players == 1 else (-1.0, 1.0)


def settle(state: State, rng: Rng) -> None:
    """Resolve every pending chance node with ``rng``, as the referee does."""
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: state.sample_chance(rng)})
