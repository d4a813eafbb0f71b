"""Who sits where: seat rotations for a series, and a tournament's groups.

Bots are named by their series id (a label per ``--bot``); the caller maps ids to specs.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations

from niwa.referee.seeds import derive_seed


def game_seed(seed: int, number: int) -> int:
    """The seed of the series' ``number``-th deal (31 bits, as ``niwa play`` prints)."""
    return derive_seed(seed, "series", number) % 2**31


def lineup(bots: Sequence[str], players: int, field: Sequence[str]) -> list[str]:
    """The seats of one game before rotation: every bot once, then the seats left
    filled from ``field`` in turn or, without a field, from the bots themselves in turn
    (as evenly as possible: four seats for A and B are A, B, A, B)."""
    if players < len(bots):
        raise ValueError(f"{len(bots)} bots need at least {len(bots)} seats, not {players}")
    extra = field or bots
    return [*bots, *(extra[k % len(extra)] for k in range(players - len(bots)))]


def rotations(seats: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a seating: each bot takes each seat's turn."""
    out: list[tuple[str, ...]] = []
    for k in range(len(seats)):
        turned = tuple(seats[k:]) + tuple(seats[:k])
        if turned not in out:
            out.append(turned)
    return out


def series_seatings(
    seats: Sequence[str], games: int, pairs: bool, seed: int
) -> Iterator[tuple[int, int, tuple[str, ...]]]:
    """(deal number, seed, seating) for each game of a series of ``games``.

    With ``pairs`` each deal is played once in every rotation, one after the other
    (so a deal's games finish close together); the last deal may be played in fewer
    rotations only if ``games`` is not a multiple of their number (the caller rounds
    up). Without, game i plays deal i in rotation i mod (number of rotations)."""
    turns = rotations(seats)
    if pairs:
        for g in range(games):
            deal = g // len(turns)
            yield deal, game_seed(seed, deal), turns[g % len(turns)]
    else:
        for g in range(games):
            yield g, game_seed(seed, g), turns[g % len(turns)]


def round_robin_groups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every group of ``players`` different bots."""
    return list(combinations(bots, players))


def gauntlet_groups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The first bot with every group of ``players - 1`` of the others."""
    first, others = bots[0], bots[1:]
    return [(first, *group) for group in combinations(others, players - 1)]


def swiss_groups(
    bots: Sequence[str],
    players: int,
    points: Mapping[str, float],
    met: Mapping[frozenset[str], int],
    rng: random.Random,
    byes: Mapping[str, int] | None = None,
) -> tuple[list[tuple[str, ...]], list[str]]:
    """One swiss round: groups of ``players`` bots with similar points who have met
    least, and the bots left over (a bye). Bots are ranked by points (ties in a seeded
    random order); the bye goes to the lowest-ranked bots among those with the fewest
    byes so far; then the best-ranked free bot takes the next best-ranked free bots it
    has met fewest times."""
    order = list(bots)
    rng.shuffle(order)
    order.sort(key=lambda b: -points.get(b, 0.0))
    sat = byes or {}
    left = len(order) % players
    out = sorted(reversed(order), key=lambda b: sat.get(b, 0))[:left]  # stable: lowest first
    free = [b for b in order if b not in out]
    groups: list[tuple[str, ...]] = []
    while len(free) >= players:
        head = free.pop(0)
        group = [head]
        for _ in range(players - 1):
            # fewest meetings with the group so far; among equals the best ranked
            pick = min(
                free,
                key=lambda b: (sum(met.get(frozenset((b, g)), 0) for g in group), free.index(b)),
            )
            free.remove(pick)
            group.append(pick)
        groups.append(tuple(group))
    return groups, out
