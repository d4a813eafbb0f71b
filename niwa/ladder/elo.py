"""Elo ratings from places, per game.

Two views of the same data:

* :func:`update` — the running rating, changed after every match: a match of n seats
  counts as the n·(n-1)/2 pairwise games between its seats (a better place wins the
  pair, a shared place draws it), each pair worth K/(n-1), so a seat's rating moves
  by at most K whatever the table size.
* :func:`niwa.ladder.mle.batch_elo` (:func:`niwa.ladder.mle.fit` on stored totals) — the
  pairwise leaderboard rating (``--rating pairwise``; the default board is
  Plackett-Luce): the maximum-likelihood Elo (Bradley-Terry on the same pairwise games,
  each weighted 1/(n-1) because the pairs of one match are not independent games) over
  all matches at once, with a 95 % confidence interval from the curvature of the
  likelihood.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

BASE = 1500.0
K = 32.0
#: Elo points per natural-log unit of odds: P(i beats j) = 1 / (1 + 10^((Rj - Ri)/400)).
SCALE = math.log(10) / 400
Z95 = 1.959963984540054

BotId = TypeVar("BotId", bound=Hashable)


def fmt_elo(x: float, digits: int = 1) -> str:
    """``+12.3`` (signed, ``digits`` decimals), or ``inf`` / ``-inf``. Anything that
    rounds to 0 reads ``+0`` (``+0.0``): a fit's -0.2 is no disadvantage, and two fits of
    the same matches may land either side of 0."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = f"{x:+.{digits}f}"
    return "+" + text[1:] if text[0] == "-" and float(text) == 0 else text


def expected(rating: float, opponent: float) -> float:
    """The expected score of ``rating`` against ``opponent`` (win 1, draw ½)."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def pair_score(place: int, other: int) -> float:
    """1 for the better (lower) place, ½ for a shared place, 0 for the worse."""
    return 1.0 if place < other else 0.5 if place == other else 0.0


def update(ratings: Sequence[float], places: Sequence[int], k: float = K) -> list[float]:
    """The ratings of a match's seats after it, from their places (0 = first)."""
    n = len(ratings)
    if n != len(places):
        raise ValueError("one place per rating")
    if n < 2:
        return list(ratings)
    weight = k / (n - 1)
    return [
        r
        + weight
        * sum(
            pair_score(places[i], places[j]) - expected(r, ratings[j])
            for j in range(n)
            if j != i
        )
        for i, r in enumerate(ratings)
    ]


@dataclass(frozen=True)
class Estimate:
    """A bot's maximum-likelihood Elo and the half-width of its 95 % interval."""

    elo: float
    ci95: float


#: Weighted pairwise totals: ``(a, b) -> (games, score)``, the games a played against b
#: and the score a made in them, each pair of an n-seat match weighing 1/(n-1).
PairTotals = dict[tuple[BotId, BotId], tuple[float, float]]


def match_pairs(match: Sequence[tuple[BotId, int]]) -> list[tuple[BotId, BotId, float, float]]:
    """One match's pairwise games, both orders: (a, b, weight, a's weighted score)."""
    n = len(match)
    out: list[tuple[BotId, BotId, float, float]] = []
    for i in range(n):
        for j in range(i + 1, n):
            (a, pa), (b, pb) = match[i], match[j]
            if a == b:
                continue
            w = 1.0 / (n - 1)
            out.append((a, b, w, w * pair_score(pa, pb)))
            out.append((b, a, w, w * pair_score(pb, pa)))
    return out


def pair_totals(
    matches: Iterable[Sequence[tuple[BotId, int]]],
) -> tuple[list[BotId], PairTotals[BotId]]:
    """The bots in order of first appearance and the pairwise totals of ``matches``."""
    totals: dict[tuple[BotId, BotId], tuple[float, float]] = {}
    bots: dict[BotId, None] = {}
    for match in matches:
        for bot, _ in match:
            bots.setdefault(bot, None)
        for a, b, g, w in match_pairs(match):
            games, score = totals.get((a, b), (0.0, 0.0))
            totals[a, b] = (games + g, score + w)
    return list(bots), totals


class Pairs(Generic[BotId]):
    """Pairwise totals as the fit reads them (bots numbered, one row per ordered pair),
    kept so that a match's pairs can be added in place."""

    def __init__(self, bots: Iterable[BotId] = ()) -> None:
        self.bots: list[BotId] = []
        self.index: dict[BotId, int] = {}
        self.slots: dict[tuple[BotId, BotId], int] = {}
        self.a: list[int] = []
        self.b: list[int] = []
        self.games: list[float] = []
        self.score: list[float] = []
        for bot in bots:
            self.number(bot)

    @classmethod
    def of(cls, bots: Iterable[BotId], totals: PairTotals[BotId]) -> Pairs[BotId]:
        pairs = cls(bots)
        for (a, b), (games, score) in totals.items():
            pairs.add(a, b, games, score)
        return pairs

    def number(self, bot: BotId) -> int:
        """The bot's number, a new one the first time it is seen."""
        i = self.index.get(bot)
        if i is None:
            i = self.index[bot] = len(self.bots)
            self.bots.append(bot)
        return i

    def add(self, a: BotId, b: BotId, games: float, score: float) -> None:
        """``games`` more of a against b, in which a scored ``score``."""
        slot = self.slots.get((a, b))
        if slot is None:
            self.slots[a, b] = len(self.games)
            self.a.append(self.number(a))
            self.b.append(self.number(b))
            self.games.append(games)
            self.score.append(score)
        else:
            self.games[slot] += games
            self.score[slot] += score


@dataclass
class Fit(Generic[BotId]):
    """A fit's estimates and what a fit over a few more matches starts from: the raw
    ratings (relative to the anchor, not shifted to the mean) and the order the bots
    were numbered in for the factorisation (:func:`niwa.ladder.blocks.breadth_first` over
    who met whom: the pattern changes little with a few more matches)."""

    estimates: dict[BotId, Estimate] = field(default_factory=dict)
    raw: dict[BotId, float] = field(default_factory=dict)
    order: list[BotId] = field(default_factory=list)
