"""The leaderboard fit as it was before the store kept pairwise totals (commit d3e70f0):
dense Newton steps by Gaussian elimination and one elimination per bot for the
intervals. Kept only to show the faster fit gives the same numbers."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

from niwa.ladder.elo import BASE, SCALE, Z95, Estimate, pair_score

BotId = TypeVar("BotId", bound=Hashable)


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



def batch_elo(
    matches: Iterable[Sequence[tuple[BotId, int]]], prior_games: float = 1.0
) -> dict[BotId, Estimate]:
    wins: dict[tuple[BotId, BotId], float] = defaultdict(float)
    games: dict[tuple[BotId, BotId], float] = defaultdict(float)
    bots: dict[BotId, int] = {}
    for match in matches:
        for bot, _ in match:
            bots.setdefault(bot, len(bots))
        weight = 1.0 / (len(match) - 1) if len(match) > 1 else 0.0
        for (a, pa), (b, pb) in itertools.combinations(match, 2):
            if a != b:  # one bot in two seats does not play itself
                wins[a, b] += weight * pair_score(pa, pb)
                wins[b, a] += weight * pair_score(pb, pa)
                games[a, b] += weight
                games[b, a] += weight
    n = len(bots)
    if n == 0:
        return {}
    pairs = [(bots[a], bots[b], g, wins[a, b]) for (a, b), g in games.items()]
    r = [0.0] * n
    for _ in range(200):
        grad, info = _gradient_and_information(r, pairs, prior_games)
        step = solve(_gauged(info, prior_games), grad)
        biggest = max(abs(s) for s in step)
        if biggest > 400.0:
            step = [s * 400.0 / biggest for s in step]
        r = [x + s for x, s in zip(r, step, strict=True)]
        if biggest < 1e-9:
            break
    _, info = _gradient_and_information(r, pairs, prior_games)
    inverse = _invert(_gauged(info, prior_games))
    row_means = [sum(row) / n for row in inverse]
    grand = sum(row_means) / n
    variances = [inverse[i][i] - 2 * row_means[i] + grand for i in range(n)]
    mean = sum(r) / n
    return {
        bot: Estimate(elo=BASE + r[i] - mean, ci95=Z95 * math.sqrt(max(variances[i], 0.0)))
        for bot, i in bots.items()
    }


def _gradient_and_information(
    r: list[float], pairs: list[tuple[int, int, float, float]], prior_games: float
) -> tuple[list[float], list[list[float]]]:
    n = len(r)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for a, b, g, w in pairs:
        p = 1.0 / (1.0 + math.exp(-SCALE * (r[a] - r[b])))
        grad[a] += SCALE * (w - g * p)
        curvature = SCALE * SCALE * g * p * (1.0 - p) / 2.0
        info[a][a] += curvature
        info[b][b] += curvature
        info[a][b] -= curvature
        info[b][a] -= curvature
    for i in range(n):
        p = 1.0 / (1.0 + math.exp(-SCALE * r[i]))
        grad[i] += SCALE * prior_games * (0.5 - p)
        info[i][i] += SCALE * SCALE * prior_games * p * (1.0 - p)
    return grad, info


def _gauged(info: list[list[float]], prior_games: float) -> list[list[float]]:
    if prior_games:
        return info
    n = len(info)
    return [[x + 1.0 / n for x in row] for row in info]


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [solve(matrix, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]
