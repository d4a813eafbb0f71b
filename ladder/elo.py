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
    intervals come from one Cholesky factorisation at the end (O(n³) at worst, once;
    far less when bots meet those near their rating, as the scheduler pairs them)."""
    index = {bot: i for i, bot in enumerate(bots)}
    n = len(index)
    if n == 0:
        return {}
    pairs = [(index[a], index[b], g, w) for (a, b), (g, w) in totals.items()]
    r = [0.0] * n  # ratings relative to base, in Elo points
    first_size = 0.0
    for _ in range(200):
        grad, info = _gradient_and_information(r, pairs, prior_games)
        # Inexact Newton: far from the optimum a rough step does as well as an exact
        # one; the solve tightens as the gradient shrinks (superlinear convergence).
        size = math.sqrt(sum(g * g for g in grad))
        first_size = first_size or size
        step = info.solve(grad, min(1e-2, size / first_size) if first_size else 1e-13)
        biggest = max(abs(s) for s in step)
        if biggest > 400.0:  # damp early steps of a lopsided start
            step = [s * 400.0 / biggest for s in step]
        r = [x + s for x, s in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    _, info = _gradient_and_information(r, pairs, prior_games)
    variances = _centred_variances(info, sorted(range(n), key=r.__getitem__))
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

    def solve(self, b: Sequence[float], tolerance: float = 1e-13) -> list[float]:
        """x with info·x = b to a residual of ``tolerance`` times |b|: conjugate
        gradients, preconditioned by the diagonal."""
        n = len(b)
        scale = [1.0 / (d + (1.0 / n if self.gauge else 0.0)) for d in self.diagonal]
        x = [0.0] * n
        res = list(b)
        z = [s * v for s, v in zip(scale, res, strict=True)]
        p = list(z)
        rz = sum(map(operator.mul, res, z))
        target = max(tolerance, 1e-13) ** 2 * max(sum(v * v for v in b), 1e-300)
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


def _centred_variances(info: Information, order: Sequence[int]) -> list[float]:
    """Variances of r_i - mean(r): ratings only say how bots compare, so a shift of
    everyone together is not uncertainty about any one bot (the leaderboard's mean is
    ``base`` by definition). Diagonal of P·C·P with P = I - 11ᵀ/n and C = info⁻¹:
    C_ii - 2 (C·1)_i / n + 1ᵀC1 / n².

    Bots are numbered along ``order`` (by rating), so that bots who met sit near each
    other: the Cholesky factor of the information then stays inside each row's envelope
    (from the first bot that row met to the diagonal), and so do the entries of C that
    Takahashi's recurrence needs for its diagonal. The work is Σ (row width)², n³/3 at
    worst (every bot met every other, or no prior: the gauge fills every entry)."""
    n = len(order)
    position = {bot: k for k, bot in enumerate(order)}
    fill = 1.0 / n if info.gauge else 0.0
    first = [0] * n if info.gauge else list(range(n))
    below: list[dict[int, float]] = [{} for _ in range(n)]  # row -> {column < row: entry}
    for (i, j), c in info.edges.items():
        a, b = sorted((position[i], position[j]), reverse=True)
        below[a][b] = below[a].get(b, 0.0) - c
        first[a] = min(first[a], b)
    rows = []
    for a in range(n):
        row = [fill] * (a - first[a] + 1)
        for b, value in below[a].items():
            row[b - first[a]] += value
        row[-1] += info.diagonal[order[a]]
        rows.append(row)
    envelope_cholesky(rows, first)
    ones = _envelope_solve(rows, first, [1.0] * n)
    diagonal = _inverse_diagonal(rows, first)
    grand = sum(ones) / (n * n)
    variances = [0.0] * n
    for a, bot in enumerate(order):
        variances[bot] = diagonal[a] - 2 * ones[a] / n + grand
    return variances


def envelope_cholesky(rows: list[list[float]], first: Sequence[int]) -> None:
    """Factor in place a symmetric positive definite matrix given by its lower rows,
    row i holding columns ``first[i]`` to i, into L (L·Lᵀ = the matrix, same layout)."""
    for i, row in enumerate(rows):
        fi = first[i]
        for j in range(fi, i + 1):
            other, fj = rows[j], first[j]
            low = max(fi, fj)
            total = row[j - fi] - sum(map(operator.mul, row[low - fi : j - fi],
                                          other[low - fj : j - fj]))  # fmt: skip
            if i == j:
                if total <= 0.0:
                    raise ArithmeticError("singular matrix")
                row[j - fi] = math.sqrt(total)
            else:
                row[j - fi] = total / other[j - fj]


def _envelope_solve(lower: list[list[float]], first: Sequence[int], b: list[float]) -> list[float]:
    """x with L·Lᵀ·x = b, for L from :func:`envelope_cholesky`."""
    n = len(b)
    y = [0.0] * n
    for i, row in enumerate(lower):
        fi = first[i]
        y[i] = (b[i] - sum(map(operator.mul, row[:-1], y[fi:i]))) / row[-1]
    for i in reversed(range(n)):  # Lᵀ·x = y, scattering each solved x_i up its row
        row, fi = lower[i], first[i]
        y[i] /= row[-1]
        x_i = y[i]
        for k in range(fi, i):
            y[k] -= row[k - fi] * x_i
    return y


def _inverse_diagonal(lower: list[list[float]], first: Sequence[int]) -> list[float]:
    """The diagonal of (L·Lᵀ)⁻¹ by Takahashi's recurrence: from the last row up,
    Z_ij = (δ_ij / L_ii - Σ_{k>i} L_ki Z_kj) / L_ii over the k below i in L's envelope,
    which needs Z only inside that envelope."""
    n = len(lower)
    below: list[list[int]] = [[] for _ in range(n)]  # column i -> rows k > i reaching it
    for k in range(n):
        for i in range(first[k], k):
            below[i].append(k)
    z = [[0.0] * len(row) for row in lower]

    def entry(k: int, j: int) -> float:
        a, b = (k, j) if k >= j else (j, k)
        return z[a][b - first[a]]

    for i in reversed(range(n)):
        reach = below[i]
        l_ii = lower[i][-1]
        l_ki = [lower[k][i - first[k]] for k in reach]
        for j in reach:
            total = sum(lk * entry(k, j) for lk, k in zip(l_ki, reach, strict=True))
            z[j][i - first[j]] = -total / l_ii
        total = sum(lk * z[k][i - first[k]] for lk, k in zip(l_ki, reach, strict=True))
        z[i][-1] = (1.0 / l_ii - total) / l_ii
    return [row[-1] for row in z]


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
