"""Elo ratings from places, per game.

Two views of the same data:

* :func:`update` — the running rating, changed after every match: a match of n seats
  counts as the n·(n-1)/2 pairwise games between its seats (a better place wins the
  pair, a shared place draws it), each pair worth K/(n-1), so a seat's rating moves
  by at most K whatever the table size.
* :func:`batch_elo` — the leaderboard's rating: the maximum-likelihood Elo
  (Bradley-Terry on the same pairwise games, each weighted 1/(n-1) because the pairs
  of one match are not independent games) over all matches at once, with a 95 %
  confidence interval from the curvature of the likelihood.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

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
    wins: dict[tuple[BotId, BotId], float] = defaultdict(float)  # weighted score of a vs b
    games: dict[tuple[BotId, BotId], float] = defaultdict(float)
    bots: dict[BotId, int] = {}
    for match in matches:
        n = len(match)
        for bot, _ in match:
            bots.setdefault(bot, len(bots))
        for i in range(n):
            for j in range(i + 1, n):
                (a, pa), (b, pb) = match[i], match[j]
                if a == b:
                    continue
                w = 1.0 / (n - 1)
                wins[a, b] += w * pair_score(pa, pb)
                wins[b, a] += w * pair_score(pb, pa)
                games[a, b] += w
                games[b, a] += w
    ids = list(bots)
    n = len(ids)
    if n == 0:
        return {}
    pairs = [(bots[a], bots[b], g, wins[a, b]) for (a, b), g in games.items()]
    r = [0.0] * n  # ratings relative to base, in Elo points
    for _ in range(200):
        grad, info = _gradient_and_information(r, pairs, prior_games)
        step = solve(_gauged(info, prior_games), grad)
        biggest = max(abs(s) for s in step)
        if biggest > 400.0:  # damp early steps of a lopsided start
            step = [s * 400.0 / biggest for s in step]
        r = [x + s for x, s in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    _, info = _gradient_and_information(r, pairs, prior_games)
    variances = _centred_variances(invert(_gauged(info, prior_games)))
    mean = sum(r) / n
    return {
        bot: Estimate(elo=base + r[i] - mean, ci95=Z95 * math.sqrt(max(variances[i], 0.0)))
        for bot, i in bots.items()
    }


def _centred_variances(covariance: list[list[float]]) -> list[float]:
    """Variances of r_i - mean(r): ratings only say how bots compare, so a shift of
    everyone together is not uncertainty about any one bot (the leaderboard's mean is
    ``base`` by definition). Diagonal of P·C·P with P = I - 11ᵀ/n."""
    n = len(covariance)
    row_means = [sum(row) / n for row in covariance]
    grand = sum(row_means) / n
    return [covariance[i][i] - 2 * row_means[i] + grand for i in range(n)]


def _gradient_and_information(
    r: list[float], pairs: list[tuple[int, int, float, float]], prior_games: float
) -> tuple[list[float], list[list[float]]]:
    """The log-likelihood's gradient and its observed information (minus its Hessian)."""
    n = len(r)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for a, b, g, w in pairs:  # each ordered pair once: a's side of the games
        p = 1.0 / (1.0 + math.exp(-SCALE * (r[a] - r[b])))
        grad[a] += SCALE * (w - g * p)
        curvature = SCALE * SCALE * g * p * (1.0 - p) / 2.0  # both orders add up to one game
        info[a][a] += curvature
        info[b][b] += curvature
        info[a][b] -= curvature
        info[b][a] -= curvature
    for i in range(n):  # virtual draws against the anchor at rating 0
        p = 1.0 / (1.0 + math.exp(-SCALE * r[i]))
        grad[i] += SCALE * prior_games * (0.5 - p)
        info[i][i] += SCALE * SCALE * prior_games * p * (1.0 - p)
    return grad, info


def _gauged(info: list[list[float]], prior_games: float) -> list[list[float]]:
    """Without a prior the information is singular along 'everyone +x': pin the mean.

    Adding 1/n to every entry makes it invertible without changing steps that keep
    the mean; what it adds to the inverse is a shift of everyone, which the centred
    variances drop."""
    if prior_games:
        return info
    n = len(info)
    return [[x + 1.0 / n for x in row] for row in info]


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


def invert(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [solve(matrix, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]
