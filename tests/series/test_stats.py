"""The series statistics against values worked out by hand (each test's comment)."""

from __future__ import annotations

import math

import pytest

from niwa.series import stats


def test_elo_of_a_three_quarter_score_is_190_85() -> None:
    # -400 log10(1/0.75 - 1) = -400 log10(1/3) = 400 * 0.477121 = 190.849
    assert stats.elo(0.75) == pytest.approx(190.849, abs=1e-3)
    assert stats.elo(0.5) == 0.0
    assert stats.elo(1.0) == math.inf and stats.elo(0.0) == -math.inf
    assert stats.expected_score(190.849) == pytest.approx(0.75, abs=1e-6)


def test_a_trinomial_summary_gives_score_elo_interval_and_los() -> None:
    # 2 losses, 2 draws, 6 wins: N = 10, s = (0 + 2*0.5 + 6*1) / 10 = 0.7
    # variance per game = (2*0.7² + 2*0.2² + 6*0.3²) / 10 = (0.98 + 0.08 + 0.54) / 10 = 0.16
    # se = sqrt(0.16 / 10) = 0.126491
    # Elo = -400 log10(1/0.7 - 1) = -400 log10(0.428571) = 147.19
    # low  = elo(0.7 - 1.959964 * 0.126491) = elo(0.452077) = -400 log10(1.212012) = -33.40
    # high = elo(0.7 + 0.247919) = elo(0.947919) = -400 log10(0.054942) = 504.0
    # LOS = Φ(0.2 / 0.126491) = Φ(1.581139) = 0.94308
    s = stats.summarise([2, 2, 6], stats.TRINOMIAL)
    assert s is not None
    assert s.observations == 10 and s.score == pytest.approx(0.7)
    assert s.stderr == pytest.approx(0.126491, abs=1e-6)
    assert s.elo == pytest.approx(147.19, abs=0.01)
    assert s.elo_low == pytest.approx(-33.40, abs=0.01)
    assert s.elo_high == pytest.approx(504.0, abs=0.1)
    assert s.los == pytest.approx(0.94308, abs=1e-5)


def test_los_without_draws_uses_the_observed_variance() -> None:
    # W = 7, L = 3, no draws: s = 0.7, variance per game = 0.7 * 0.3 = 0.21,
    # se = sqrt(0.21 / 10) = 0.144914, z = 0.2 / 0.144914 = 1.380131, Φ(z) = 0.916222.
    # (The classic Φ((W - L) / sqrt(W + L)) = Φ(1.264911) = 0.897 takes the variance at
    # s = ½; ours takes the observed one, and the two agree when s is near ½.)
    s = stats.summarise([3, 0, 7], stats.TRINOMIAL)
    assert s is not None and s.los == pytest.approx(0.916222, abs=1e-5)


def test_a_pentanomial_summary_counts_pairs() -> None:
    # pairs scoring 0, ½, 1, 1½, 2 (normalised 0, ¼, ½, ¾, 1): counts 1, 1, 4, 3, 1
    # N = 10, s = (0.25 + 4*0.5 + 3*0.75 + 1) / 10 = 5.5 / 10 = 0.55
    # variance = (0.55² + 0.3² + 4*0.05² + 3*0.2² + 0.45²) / 10
    #          = (0.3025 + 0.09 + 0.01 + 0.12 + 0.2025) / 10 = 0.0725; se = sqrt(0.00725) = 0.085147
    # Elo = -400 log10(0.45/0.55) = 34.86; LOS = Φ(0.05 / 0.085147) = Φ(0.587220) = 0.721476
    s = stats.summarise([1, 1, 4, 3, 1], stats.PENTANOMIAL)
    assert s is not None and s.score == pytest.approx(0.55)
    assert s.stderr == pytest.approx(0.085147, abs=1e-6)
    assert s.elo == pytest.approx(34.86, abs=0.01)
    assert s.los == pytest.approx(0.721476, abs=1e-5)


def test_a_clean_sweep_gets_the_wilson_interval_and_an_empty_series_no_summary() -> None:
    # 8 pairs all won: σ = 0, so Wilson with s = 1, n = 8, z² = 3.841459:
    # centre = (1 + z²/16) / (1 + z²/8) = 1.240091 / 1.480182 = 0.837796,
    # half = 1.959964 / 1.480182 * sqrt(z² / 256) = 1.324134 * 0.122499 = 0.162204,
    # low = 0.675592; elo(0.675592) = -400 log10(1/0.675592 - 1) = -400 log10(0.480183)
    #     = 400 * 0.318594 = +127.44
    s = stats.summarise([0, 0, 0, 0, 8], stats.PENTANOMIAL)
    assert s is not None and s.los == 1.0 and s.elo == math.inf
    assert s.elo_low == pytest.approx(127.44, abs=0.01) and s.elo_high == math.inf
    assert stats.summarise([0, 0, 0], stats.TRINOMIAL) is None


def test_the_constrained_mle_moves_mass_to_meet_the_mean() -> None:
    # frequencies ½ loss, 0 draw, ½ win, wanted mean 0.6: p_i = f_i / (1 + λ (a_i - 0.6)):
    # p_win = 0.5 / (1 + 0.4 λ) = 0.6 gives λ = (0.5/0.6 - 1) / 0.4 = -0.416667, and then
    # p_loss = 0.5 / (1 - 0.6 λ) = 0.5 / 1.25 = 0.4: the distribution (0.4, 0, 0.6)
    p = stats.mle([0.5, 0.0, 0.5], stats.TRINOMIAL, 0.6)
    assert p == pytest.approx([0.4, 0.0, 0.6], abs=1e-12)


def test_the_llr_of_an_even_series_against_a_small_edge() -> None:
    # 5 wins, 0 draws, 5 losses; elo0 = 0 (s0 = 0.5), elo1 = elo(0.6) = 70.437.
    # The sample's mean is 0.5, so p0 = f = (0.5, 0, 0.5); p1 = (0.4, 0, 0.6) as above.
    # LLR = 5 ln(0.4/0.5) + 5 ln(0.6/0.5) = 5 (-0.223144 + 0.182322) = -0.204110
    # (the 1e-3 regularisation moves it by less than 1e-3)
    value = stats.llr([5, 0, 5], stats.TRINOMIAL, 0.0, stats.elo(0.6))
    assert value == pytest.approx(-0.204110, abs=1e-3)


def test_the_sprt_bounds_are_walds() -> None:
    # lower = ln(β / (1 - α)) = ln(0.05/0.95) = -2.944439; upper = ln(0.95/0.05) = 2.944439
    t = stats.Sprt.parse(["elo0=0", "elo1=5"])
    assert (t.lower, t.upper) == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert t.verdict(3.0) == "H1" and t.verdict(-3.0) == "H0" and t.verdict(0.0) == "continue"


def test_an_sprt_with_elo1_not_above_elo0_is_refused() -> None:
    with pytest.raises(ValueError, match="elo1 must be above elo0"):
        stats.Sprt.parse(["elo0=5", "elo1=5"])
    with pytest.raises(ValueError, match="NAME=NUMBER"):
        stats.Sprt.parse(["elo2=5"])
