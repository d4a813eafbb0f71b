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
import operator
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
    """:func:`batch_elo` from pairwise totals (as the store keeps them, per game).

    Newton's method on the log-likelihood; each step is solved by conjugate gradients
    over the pairs (O(pairs) <= O(n²) per iteration, never a dense n×n solve), and the
    intervals come from one Cholesky factorisation at the end (O(n³) once)."""
    index = {bot: i for i, bot in enumerate(bots)}
    n = len(index)
    if n == 0:
        return {}
    pairs = [(index[a], index[b], g, w) for (a, b), (g, w) in totals.items()]
    r = [0.0] * n  # ratings relative to base, in Elo points
    for _ in range(200):
        grad, info = _gradient_and_information(r, pairs, prior_games)
        step = info.solve(grad)
        biggest = max(abs(s) for s in step)
        if biggest > 400.0:  # damp early steps of a lopsided start
            step = [s * 400.0 / biggest for s in step]
        r = [x + s for x, s in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    _, info = _gradient_and_information(r, pairs, prior_games)
    variances = _centred_variances(info)
    mean = sum(r) / n
    return {
        bot: Estimate(elo=base + r[i] - mean, ci95=Z95 * math.sqrt(max(variances[i], 0.0)))
        for bot, i in index.items()
    }


@dataclass
class Information:
    """The observed information (minus the log-likelihood's Hessian), kept sparse: a
    weighted graph Laplacian over the pairs plus the anchor's diagonal.

    Without a prior it is singular along 'everyone +x': ``gauge`` adds 1/n to every
    entry, which makes it invertible without changing steps that keep the mean; what it
    adds to the inverse is a shift of everyone, which the centred variances drop."""

    diagonal: list[float]
    edges: dict[tuple[int, int], float]  # (i, j), i < j: the off-diagonal entry is -c
    gauge: bool

    def times(self, x: Sequence[float]) -> list[float]:
        y = [d * v for d, v in zip(self.diagonal, x, strict=True)]
        for (i, j), c in self.edges.items():
            y[i] -= c * x[j]
            y[j] -= c * x[i]
        if self.gauge:
            shift = sum(x) / len(x)
            y = [v + shift for v in y]
        return y

    def solve(self, b: Sequence[float]) -> list[float]:
        """x with info·x = b: conjugate gradients, preconditioned by the diagonal."""
        n = len(b)
        scale = [1.0 / (d + (1.0 / n if self.gauge else 0.0)) for d in self.diagonal]
        x = [0.0] * n
        res = list(b)
        z = [s * v for s, v in zip(scale, res, strict=True)]
        p = list(z)
        rz = sum(map(operator.mul, res, z))
        target = 1e-26 * max(sum(v * v for v in b), 1e-300)
        for _ in range(max(10 * n, 100)):
            if sum(v * v for v in res) <= target:
                break
            q = self.times(p)
            pq = sum(map(operator.mul, p, q))
            if pq <= 0.0:
                raise ArithmeticError("singular matrix")
            alpha = rz / pq
            x = [xi + alpha * pi for xi, pi in zip(x, p, strict=True)]
            res = [ri - alpha * qi for ri, qi in zip(res, q, strict=True)]
            z = [s * v for s, v in zip(scale, res, strict=True)]
            rz_next = sum(map(operator.mul, res, z))
            beta = rz_next / rz
            rz = rz_next
            p = [zi + beta * pi for zi, pi in zip(z, p, strict=True)]
        return x

    def dense(self) -> list[list[float]]:
        n = len(self.diagonal)
        fill = 1.0 / n if self.gauge else 0.0
        m = [[fill] * n for _ in range(n)]
        for i, d in enumerate(self.diagonal):
            m[i][i] += d
        for (i, j), c in self.edges.items():
            m[i][j] -= c
            m[j][i] -= c
        return m


def _centred_variances(info: Information) -> list[float]:
    """Variances of r_i - mean(r): ratings only say how bots compare, so a shift of
    everyone together is not uncertainty about any one bot (the leaderboard's mean is
    ``base`` by definition). Diagonal of P·C·P with P = I - 11ᵀ/n and C = info⁻¹.

    With info = L·Lᵀ and W = L⁻¹, C = WᵀW: C_ii is the squared norm of W's column i,
    C·1 = Wᵀ(W·1), so one factorisation and one triangular inverse give everything."""
    lower = cholesky(info.dense())
    n = len(lower)
    columns = [_unit_solve(lower, j) for j in range(n)]  # W by columns
    w_ones = [0.0] * n
    for column in columns:
        w_ones = [a + b for a, b in zip(w_ones, column, strict=True)]
    row_means = [sum(map(operator.mul, column, w_ones)) / n for column in columns]
    grand = sum(row_means) / n
    return [
        sum(v * v for v in column) - 2 * row_means[i] + grand
        for i, column in enumerate(columns)
    ]


def cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """L (lower triangular, by rows) with L·Lᵀ = ``matrix`` (symmetric positive definite)."""
    n = len(matrix)
    lower: list[list[float]] = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = lower[i]
        for j in range(i + 1):
            other = lower[j]
            s = matrix[i][j] - sum(map(operator.mul, row[:j], other[:j]))
            if i == j:
                if s <= 0.0:
                    raise ArithmeticError("singular matrix")
                row[i] = math.sqrt(s)
            else:
                row[j] = s / other[j]
    return lower


def _unit_solve(lower: list[list[float]], j: int) -> list[float]:
    """Column j of L⁻¹: forward substitution of the unit vector e_j (zero above j)."""
    n = len(lower)
    w = [0.0] * n
    for i in range(j, n):
        row = lower[i]
        s = (1.0 if i == j else 0.0) - sum(map(operator.mul, row[j:i], w[j:i]))
        w[i] = s / row[i]
    return w


def _gradient_and_information(
    r: list[float], pairs: list[tuple[int, int, float, float]], prior_games: float
) -> tuple[list[float], Information]:
    """The log-likelihood's gradient and its observed information (minus its Hessian)."""
    n = len(r)
    grad = [0.0] * n
    diagonal = [0.0] * n
    edges: dict[tuple[int, int], float] = {}
    for a, b, g, w in pairs:  # each ordered pair once: a's side of the games
        p = 1.0 / (1.0 + math.exp(-SCALE * (r[a] - r[b])))
        grad[a] += SCALE * (w - g * p)
        curvature = SCALE * SCALE * g * p * (1.0 - p) / 2.0  # both orders add up to one game
        diagonal[a] += curvature
        diagonal[b] += curvature
        key = (a, b) if a < b else (b, a)
        edges[key] = edges.get(key, 0.0) + curvature
    for i in range(n):  # virtual draws against the anchor at rating 0
        p = 1.0 / (1.0 + math.exp(-SCALE * r[i]))
        grad[i] += SCALE * prior_games * (0.5 - p)
        diagonal[i] += SCALE * SCALE * prior_games * p * (1.0 - p)
    return grad, Information(diagonal, edges, gauge=not prior_games)


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
