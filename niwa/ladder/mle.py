"""The pairwise leaderboard rating (``niwa ladder serve --rating pairwise``; the default
is Plackett-Luce, :mod:`niwa.ladder.kept_pl`): the maximum-likelihood Elo (Bradley-Terry
on the pairwise games of :mod:`niwa.ladder.elo`) over all matches at once, with a 95 %
confidence interval from the curvature of the likelihood.

Newton's method, each step solved exactly with the information's block tridiagonal
factorisation (:mod:`niwa.ladder.blocks`, numpy), whose last factorisation gives the
intervals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from niwa.ladder.blocks import (
    Factor,
    Indices,
    Pattern,
    Vector,
    breadth_first,
    one_blas_thread,
    sums,
)
from niwa.ladder.elo import BASE, SCALE, Z95, BotId, Estimate, Fit, Pairs, PairTotals, pair_totals


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
    factorisation (:mod:`niwa.ladder.blocks`), and the last factorisation gives the
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
