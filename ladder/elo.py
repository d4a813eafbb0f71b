"""Elo ratings from places, per game.

Two views of the same data:

* :func:`update` — the running rating, changed after every match: a match of n seats
  counts as the n·(n-1)/2 pairwise games between its seats (a better place wins the
  pair, a shared place draws it), each pair worth K/(n-1), so a seat's rating moves
  by at most K whatever the table size.
* :func:`batch_elo` (:func:`fit` on stored pairwise totals) — the leaderboard's
  rating: the maximum-likelihood Elo (Bradley-Terry on the same pairwise games, each
  weighted 1/(n-1) because the pairs of one match are not independent games) over all
  matches at once, with a 95 % confidence interval from the curvature of the
  likelihood.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from ladder.blocks import (
    Factor,
    Indices,
    Pattern,
    Vector,
    breadth_first,
    one_blas_thread,
    sums,
)

BASE = 1500.0
K = 32.0
#: Elo points per natural-log unit of odds: P(i beats j) = 1 / (1 + 10^((Rj - Ri)/400)).
SCALE = math.log(10) / 400
Z95 = 1.959963984540054

BotId = TypeVar("BotId", bound=Hashable)


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


def batch_elo(
    matches: Iterable[Sequence[tuple[BotId, int]]],
    prior_games: float = 1.0,
    base: float = BASE,
) -> dict[BotId, Estimate]:
    """Maximum-likelihood Elo of every bot in ``matches`` (each a list of (bot, place)).

    ``prior_games`` virtual draws against a bot rated ``base`` keep the estimate finite
    for a bot that has won (or lost) everything. Ratings are relative: they are shifted
    so that their mean is ``base``, and the intervals are those of each bot's rating
    against that mean.
    """
    bots, totals = pair_totals(matches)
    return fit(bots, totals, prior_games, base)


def fit(
    bots: Sequence[BotId],
    totals: PairTotals[BotId],
    prior_games: float = 1.0,
    base: float = BASE,
) -> dict[BotId, Estimate]:
    """:func:`batch_elo` from pairwise totals (as the store keeps them, per game)."""
    return fit_from(Pairs.of(bots, totals), Fit(), prior_games, base).estimates


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
    were numbered in for the factorisation (:func:`ladder.blocks.breadth_first` over
    who met whom: the pattern changes little with a few more matches)."""

    estimates: dict[BotId, Estimate] = field(default_factory=dict)
    raw: dict[BotId, float] = field(default_factory=dict)
    order: list[BotId] = field(default_factory=list)


def fit_from(
    pairs: Pairs[BotId],
    last: Fit[BotId],
    prior_games: float = 1.0,
    base: float = BASE,
) -> Fit[BotId]:
    """:func:`fit`, starting Newton's method from the ``last`` fit's ratings (a bot not
    in it starts at 0): after a few more matches the optimum has moved little and two
    or three steps reach it again.

    Each Newton step is solved exactly with the information's block tridiagonal
    factorisation (:mod:`ladder.blocks`), and the last factorisation gives the
    intervals."""
    bots = pairs.bots
    n = len(bots)
    if n == 0:
        return Fit()
    a, b = np.array(pairs.a, np.intp), np.array(pairs.b, np.intp)
    g, w = np.array(pairs.games, np.float64), np.array(pairs.score, np.float64)
    r = np.array([last.raw.get(bot, 0.0) for bot in bots], np.float64)
    if len(last.order) == n and all(bot in pairs.index for bot in last.order):
        order = np.array([pairs.index[bot] for bot in last.order], np.intp)
    else:
        order = breadth_first(n, a, b, int(np.argmin(r)))
    one_blas_thread()
    factor = _newton(r, a, b, g, w, prior_games, order)
    variances = np.empty(n)
    variances[order] = _centred_variances(factor)
    shift = base - float(r.mean())
    ci95 = (Z95 * np.sqrt(np.maximum(variances, 0.0))).tolist()
    raw = r.tolist()
    estimates = {
        bot: Estimate(elo=x + shift, ci95=c) for bot, x, c in zip(bots, raw, ci95, strict=True)
    }
    return Fit(estimates, dict(zip(bots, raw, strict=True)), [bots[i] for i in order.tolist()])


def _newton(
    r: Vector, a: Indices, b: Indices, g: Vector, w: Vector, prior_games: float,
    order: Indices,
) -> Factor:
    """Newton's method from ``r`` to the maximum (``r`` changed in place), the bots
    numbered along ``order`` in the information; its last factorisation."""
    n = len(r)
    position = np.empty(n, np.intp)
    position[order] = np.arange(n)
    pa, pb = position[a], position[b]
    # Entry (i, j) is minus the curvature of both orders: each order adds it to both.
    pattern = Pattern.of(
        n, np.concatenate([pa, pb]), np.concatenate([pb, pa]), 0.0 if prior_games else 1.0 / n
    )
    for _ in range(200):
        grad, diagonal, curvature = _derivatives(r, a, b, g, w, prior_games)
        factor = pattern.matrix(diagonal[order], -np.concatenate([curvature, curvature])).factor()
        step = np.empty(n)
        step[order] = factor.solve(grad[order])
        biggest = float(np.abs(step).max())
        if biggest > 10.0:  # far out (a cold start): halve a step that overshoots
            here = _log_likelihood(r, a, b, w, prior_games)
            while biggest > 1.0 and _log_likelihood(r + step, a, b, w, prior_games) < here:
                step *= 0.5
                biggest *= 0.5
        r += step
        if biggest < 1e-7:  # the factorisation is as good as one at r: the step moved
            break  # nothing that changes a curvature by more than 1e-9 of itself
    return factor


def _log_likelihood(r: Vector, a: Indices, b: Indices, w: Vector, prior_games: float) -> float:
    """Each ordered pair's score times the log of its chance to win (the other order
    holds the rest of those games), plus the anchor's virtual draws."""
    games = -float(w @ np.logaddexp(0.0, -SCALE * (r[a] - r[b])))
    anchor = np.logaddexp(0.0, -SCALE * r) + np.logaddexp(0.0, SCALE * r)
    return games - 0.5 * prior_games * float(anchor.sum())


def _derivatives(
    r: Vector, a: Indices, b: Indices, g: Vector, w: Vector, prior_games: float
) -> tuple[Vector, Vector, Vector]:
    """The log-likelihood's gradient and its observed information (minus its Hessian):
    the diagonal, and each ordered pair's half of the curvature between its bots.

    Without a prior the information is singular along 'everyone +x': 1/n added to every
    entry (see :func:`_newton`) makes it invertible without changing steps that keep the
    mean; what it adds to the inverse is a shift of everyone, which the centred
    variances drop."""
    n = len(r)
    p = 1.0 / (1.0 + np.exp(-SCALE * (r[a] - r[b])))  # each ordered pair: a's side
    grad = sums(a, SCALE * (w - g * p), n)
    curvature = SCALE * SCALE * g * p * (1.0 - p) / 2.0  # both orders add up to one game
    diagonal = sums(a, curvature, n) + sums(b, curvature, n)
    anchor = 1.0 / (1.0 + np.exp(-SCALE * r))  # virtual draws against rating 0
    grad += SCALE * prior_games * (0.5 - anchor)
    diagonal += SCALE * SCALE * prior_games * anchor * (1.0 - anchor)
    return grad, diagonal, curvature


def _centred_variances(factor: Factor) -> Vector:
    """Variances of r_i - mean(r): ratings only say how bots compare, so a shift of
    everyone together is not uncertainty about any one bot (the leaderboard's mean is
    ``base`` by definition). Diagonal of P·C·P with P = I - 11ᵀ/n and C = info⁻¹:
    C_ii - 2 (C·1)_i / n + 1ᵀC1 / n²."""
    n = sum(len(d) for d in factor.matrix.diagonal)
    ones = factor.solve(np.ones(n))
    return factor.inverse_diagonal() - 2.0 * ones / n + float(ones.sum()) / (n * n)


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix·x = vector (Gaussian elimination with partial pivoting)."""
    n = len(vector)
    m = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda i: abs(m[i][col]))
        if abs(m[pivot][col]) < 1e-300:
            raise ArithmeticError("singular matrix")
        m[col], m[pivot] = m[pivot], m[col]
        for i in range(col + 1, n):
            f = m[i][col] / m[col][col]
            if f:
                for j in range(col, n + 1):
                    m[i][j] -= f * m[col][j]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x
