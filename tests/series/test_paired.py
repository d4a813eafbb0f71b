"""The paired comparison of ``niwa replay fork --from`` (niwa.series.paired)."""

from __future__ import annotations

import math

import pytest

from niwa.series.paired import compare, ladder, share
from niwa.series.stats import PENTANOMIAL, Sprt, llr


def test_a_seats_share_counts_the_seats_it_beat_and_half_the_ties() -> None:
    assert share([1, 0, 1, 3], 0) == pytest.approx((0.5 + 1.0) / 3)


def test_one_game_per_two_player_replay_puts_the_pair_score_on_the_pentanomial_ladder() -> None:
    assert ladder(1, 1) == list(PENTANOMIAL)


def test_the_interval_of_four_differences_uses_t_with_three_degrees_of_freedom() -> None:
    d = [0.5, 0.0, 0.5, 0.0]  # mean 0.25, sample variance 0.25 / 3
    paired = compare(d, 1, 1, Sprt())
    half = 3.182 * math.sqrt(0.25 / 3) / 2
    assert (paired.mean, paired.low, paired.high) == pytest.approx((0.25, 0.25 - half, 0.25 + half))
    assert paired.llr == pytest.approx(llr([0, 0, 2, 2, 0], PENTANOMIAL, 0.0, 5.0))


def test_the_interval_is_clipped_to_where_a_difference_can_lie() -> None:
    paired = compare([1.0, -1.0, 1.0], 1, 1, Sprt())
    assert (paired.low, paired.high) == (-1.0, 1.0)


def test_one_replay_has_no_interval() -> None:
    paired = compare([0.5], 1, 1, Sprt())
    assert (paired.low, paired.high, paired.verdict) == (None, None, "continue")
