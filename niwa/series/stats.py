"""The statistics of a series between bot A and bot B.

An *observation* is one independent unit of the series, scored for A on a ladder of
outcomes ``a_0 < ... < a_k`` normalised to [0, 1]:

* a **game pair** (2 players, both seatings on one seed): A's points over the two
  games, 0, ½, 1, 1½ or 2, divided by 2: the pentanomial ladder 0, ¼, ½, ¾, 1;
* a **game** (2 players without pairs) or a **match** of 3+ players (A's place
  against B's place in it): loss, draw, win: the trinomial ladder 0, ½, 1.

From the counts ``n_i`` of each outcome (N observations):

* score ``s = Σ n_i a_i / N``; Elo difference ``elo(s) = -400 log10(1/s - 1)``;
* standard error ``σ = sqrt(Σ n_i (a_i - s)² / N) / sqrt(N)``; the 95 % interval is
  ``elo(s ± 1.96 σ)`` (±inf past 0 or 1). When every observation is the same (σ = 0,
  e.g. a clean sweep) that interval is a point, so the Wilson score interval of N
  trials with rate s is used instead: a sweep of 8 pairs gives [+128, inf];
* LOS, the likelihood of superiority, ``Φ((s - ½) / σ)``: the probability, under
  the normal approximation, that A's true score is above ½ (that A is stronger);
* the SPRT (Wald's sequential test, generalised as in fishtest): for ``H0: elo = elo0``
  against ``H1: elo = elo1`` on the logistic Elo scale, the scores
  ``s_j = 1 / (1 + 10^(-elo_j/400))``; the log-likelihood ratio is
  ``LLR = Σ n_i log(p1_i / p0_i)`` where ``p_j`` is the maximum-likelihood outcome
  distribution whose mean is ``s_j``, given the observed frequencies ``f_i``:
  ``p_j,i = f_i / (1 + λ (a_i - s_j))`` with λ the root of
  ``Σ f_i (a_i - s_j) / (1 + λ (a_i - s_j)) = 0``. Counts are regularised by adding
  ``1e-3`` to each, so an outcome not seen yet keeps a positive probability. The test
  accepts H1 once ``LLR >= log((1 - β) / α)`` and H0 once ``LLR <= log(β / (1 - α))``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from niwa.ladder.elo import Z95, expected

#: Added to every outcome count before the SPRT's fit (as fishtest does).
REGULARISATION = 1e-3
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
TRINOMIAL = (0.0, 0.5, 1.0)

Verdict = Literal["H1", "H0", "continue"]


def elo(score: float) -> float:
    """The logistic Elo difference that expects ``score`` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_diff: float) -> float:
    """The score an Elo difference of ``elo_diff`` expects: the inverse of :func:`elo`
    (the ladder's own formula, :func:`niwa.ladder.elo.expected`)."""
    return expected(elo_diff, 0.0)


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def wilson(score: float, n: float) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate ``score`` over ``n`` independent trials."""
    z2 = Z95 * Z95
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(score * (1 - score) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def t_quantile_975(df: int) -> float:
    """Student t 97.5 % quantile (Cornish-Fisher expansion; within 0.2 % for df >= 5)."""
    z = 1.959964
    if df <= 0:
        return math.inf
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def block_interval(block_means: Sequence[float], matches: int) -> tuple[float, float, float]:
    """Mean score and its 95 % interval: Student t on the independent per-deal means,
    widened to at least the Wilson interval of ``matches`` games, which stays honest
    when every game went the same way (the t interval then shrinks to a point)."""
    mean = statistics.fmean(block_means)
    n = len(block_means)
    low, high = wilson(mean, matches)
    if n >= 2:
        half = t_quantile_975(n - 1) * statistics.stdev(block_means) / math.sqrt(n)
        low, high = min(low, max(0.0, mean - half)), max(high, min(1.0, mean + half))
    return mean, low, high


@dataclass(frozen=True)
class Summary:
    """Score, Elo with its 95 % interval and LOS of a series' observations."""

    observations: int
    score: float
    stderr: float
    elo: float
    elo_low: float
    elo_high: float
    los: float


def summarise(counts: Sequence[float], ladder: Sequence[float]) -> Summary | None:
    """The summary of ``counts[i]`` observations with outcome ``ladder[i]``; None
    before the first observation."""
    n = sum(counts)
    if n <= 0:
        return None
    s = sum(c * a for c, a in zip(counts, ladder, strict=True)) / n
    variance = sum(c * (a - s) ** 2 for c, a in zip(counts, ladder, strict=True)) / n
    se = math.sqrt(variance / n)
    low, high = (s - Z95 * se, s + Z95 * se) if se > 0 else wilson(s, n)
    # with every observation the same, LOS is certain either way, or even
    los = normal_cdf((s - 0.5) / se) if se > 0 else 1.0 if s > 0.5 else 0.0 if s < 0.5 else 0.5
    return Summary(
        observations=int(n),
        score=s,
        stderr=se,
        elo=elo(s),
        elo_low=elo(low),
        elo_high=elo(high),
        los=los,
    )


def _lambda(freqs: Sequence[float], ladder: Sequence[float], mean: float) -> float:
    """The root λ of Σ f_i (a_i - m) / (1 + λ (a_i - m)) = 0 on the interval where every
    1 + λ (a_i - m) is positive (the function falls strictly on it). Newton from 0,
    kept inside a shrinking bracket, falling back to bisection."""
    d = [a - mean for a in ladder]
    top, bottom = max(d), min(d)
    if top <= 0 or bottom >= 0:
        raise ValueError(f"score {mean} is outside the outcomes {min(ladder)}..{max(ladder)}")
    lo, hi = -1.0 / top, -1.0 / bottom  # the open interval of admissible λ
    x = 0.0
    for _ in range(100):
        f = 0.0
        df = 0.0
        for fi, di in zip(freqs, d, strict=True):
            q = di / (1.0 + x * di)
            f += fi * q
            df -= fi * q * q
        if f > 0:
            lo = x
        else:
            hi = x
        if abs(f) < 1e-13:
            return x
        step = x - f / df if df < 0 else math.nan
        x = step if lo < step < hi else (lo + hi) / 2
        if hi - lo < 1e-15:
            return x
    return x


def mle(freqs: Sequence[float], ladder: Sequence[float], mean: float) -> list[float]:
    """The outcome distribution nearest ``freqs`` (in likelihood) whose mean is ``mean``."""
    lam = _lambda(freqs, ladder, mean)
    return [f / (1.0 + lam * (a - mean)) for f, a in zip(freqs, ladder, strict=True)]


def llr(counts: Sequence[float], ladder: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised SPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0)."""
    if sum(counts) <= 0:
        return 0.0
    regular = [c + REGULARISATION for c in counts]
    total = sum(regular)
    freqs = [c / total for c in regular]
    p0 = mle(freqs, ladder, expected_score(elo0))
    p1 = mle(freqs, ladder, expected_score(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(regular, p0, p1, strict=True))


@dataclass(frozen=True)
class Sprt:
    """The test's parameters and bounds: ``H0: elo = elo0`` against ``H1: elo = elo1``."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("alpha and beta must lie in (0, 1) with alpha + beta < 1")
        if self.elo1 <= self.elo0:
            raise ValueError("elo1 must be above elo0 (H1 says A is the stronger)")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)

    def verdict(self, value: float) -> Verdict:
        return "H1" if value >= self.upper else "H0" if value <= self.lower else "continue"

    @classmethod
    def parse(cls, words: Sequence[str]) -> Sprt:
        """From ``elo0=0 elo1=5 alpha=0.05 beta=0.05`` (any subset; ValueError naming
        the bad word)."""
        values: dict[str, float] = {}
        for word in words:
            name, sep, text = word.partition("=")
            if not sep or name not in ("elo0", "elo1", "alpha", "beta"):
                raise ValueError(
                    f"--sprt {word!r}: write NAME=NUMBER with NAME elo0, elo1, alpha or beta"
                )
            try:
                values[name] = float(text)
            except ValueError:
                raise ValueError(f"--sprt {word!r}: {text!r} is not a number") from None
        return cls(**values)
