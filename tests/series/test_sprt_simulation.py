"""The SPRT's error rates on synthetic series (no games): with the true Elo difference
at elo0 it should accept H1 about alpha of the time (type I error), at elo1 accept H0
about beta of the time (type II error)."""

from __future__ import annotations

import random

from niwa.series import stats

DRAW = 0.3  # share of drawn games
ELO0, ELO1 = 0.0, 60.0
SPRT = stats.Sprt(ELO0, ELO1, alpha=0.1, beta=0.1)
SERIES = 1000
MAX_PAIRS = 2000


def game(rng: random.Random, elo: float) -> float:
    """One game's score for A: draws at a fixed rate, wins so the mean is expected(elo)."""
    s = stats.expected_score(elo)
    win = s - DRAW / 2
    x = rng.random()
    return 1.0 if x < win else 0.5 if x < win + DRAW else 0.0


def verdict(rng: random.Random, elo: float, pairs: bool) -> stats.Verdict:
    ladder = stats.PENTANOMIAL if pairs else stats.TRINOMIAL
    counts = [0] * len(ladder)
    for _ in range(MAX_PAIRS):
        if pairs:
            counts[round((game(rng, elo) + game(rng, elo)) * 2)] += 1
        else:
            counts[round(game(rng, elo) * 2)] += 1
        v = SPRT.verdict(stats.llr(counts, ladder, ELO0, ELO1))
        if v != "continue":
            return v
    return "continue"


def error_rate(elo: float, wrong: stats.Verdict, pairs: bool, seed: int) -> float:
    rng = random.Random(seed)
    return sum(verdict(rng, elo, pairs) == wrong for _ in range(SERIES)) / SERIES


# Wald's bounds make the rates land near alpha and beta (a little under, as the LLR
# overshoots them; a little over is possible for the generalised test on small
# samples); 1000 series give a standard error of about 0.0095 at 0.1, so the window
# [0.05, 0.14] is the nominal 0.1 give or take four standard errors and the overshoot.


def test_pentanomial_type_one_error_is_about_alpha() -> None:
    assert 0.05 <= error_rate(ELO0, "H1", pairs=True, seed=1) <= 0.14


def test_pentanomial_type_two_error_is_about_beta() -> None:
    assert 0.05 <= error_rate(ELO1, "H0", pairs=True, seed=2) <= 0.14


def test_trinomial_type_one_error_is_about_alpha() -> None:
    assert 0.05 <= error_rate(ELO0, "H1", pairs=False, seed=3) <= 0.14


def test_trinomial_type_two_error_is_about_beta() -> None:
    assert 0.05 <= error_rate(ELO1, "H0", pairs=False, seed=4) <= 0.14
