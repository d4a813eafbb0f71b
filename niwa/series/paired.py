"""The paired comparison of ``niwa replay fork --from``: each recorded match against
its fork(s), for one seat (the method: docs/series.md, "Forks: the paired comparison").

* A seat's **share** of a match: the other seats it placed above, a tie counting
  half, over the other seats: 1 win, ½ draw, 0 loss with two players.
* Per replay i, ``d_i = mean(forked shares) - original share``, in [-1, 1]: the
  same position, the same recorded chance where it still applies, so most of the luck
  of the deal cancels.
* The mean paired difference ``d̄`` with its 95 % Student t interval
  ``d̄ ± t(n-1) s_d / √n`` (exact t quantiles to 30 degrees of freedom), clipped to
  [-1, 1], where every d_i lies.
* The SPRT (:mod:`niwa.series.stats`) on ``x_i = (1 + d_i) / 2``, the fork's score in
  a head-to-head with the original from the same position: with one game per replay
  ``x_i`` is 0, ¼, ½, ¾ or 1 between two players, the pentanomial ladder of a game
  pair; with M games per replay and P players the ladder has steps of 1/(4M(P-1)).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from niwa.series.stats import Sprt, Verdict, llr, t_quantile_975

#: Student t 97.5 % quantiles for 1 to 30 degrees of freedom (the expansion in
#: :func:`t_quantile_975` is off by up to 35 % below 5).
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)


def t975(df: int) -> float:
    if df < 1:
        return math.inf
    return T975[df - 1] if df <= len(T975) else t_quantile_975(df)


def share(places: Sequence[int], seat: int) -> float:
    """The seat's share of a match from its places (0 is first, ties share a place)."""
    others = [p for s, p in enumerate(places) if s != seat]
    if not others:
        raise ValueError("a share needs two seats or more")
    mine = places[seat]
    return sum(1.0 if p > mine else 0.5 if p == mine else 0.0 for p in others) / len(others)


@dataclass(frozen=True)
class Paired:
    """The comparison over ``n`` replays: mean difference, its 95 % interval (None
    below two replays), and the SPRT's LLR and verdict."""

    n: int
    mean: float
    low: float | None
    high: float | None
    llr: float
    verdict: Verdict


def ladder(games: int, others: int) -> list[float]:
    """The values ``x_i`` can take with ``games`` forked games per replay and
    ``others`` seats beside the compared one: a share is a multiple of 1/(2 others), a
    mean of them of 1/(2 games others), so x is one of 1/(4 games others)."""
    steps = 4 * games * others
    return [k / steps for k in range(steps + 1)]


def compare(differences: Sequence[float], games: int, others: int, sprt: Sprt) -> Paired:
    """The paired comparison of ``differences`` (fork minus original, one per replay,
    each the mean over ``games`` forked games); ``others``: a common multiple of every
    replay's seat count less one (replays of several player counts share a ladder)."""
    n = len(differences)
    if n == 0:
        raise ValueError("no replay was forked")
    mean = statistics.fmean(differences)
    low = high = None
    if n >= 2:
        half = t975(n - 1) * statistics.stdev(differences) / math.sqrt(n)
        low, high = max(-1.0, mean - half), min(1.0, mean + half)  # d_i lie in [-1, 1]
    steps = ladder(games, others)
    counts = [0.0] * len(steps)
    for d in differences:  # x on the ladder: a multiple of 1/(4 games), rounded back
        counts[round((1.0 + d) / 2 * (len(steps) - 1))] += 1
    value = llr(counts, steps, sprt.elo0, sprt.elo1)
    return Paired(n, mean, low, high, value, sprt.verdict(value))
