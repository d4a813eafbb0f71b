"""Results by seat and by table, and the kingmaker check, on hand-built tables."""

from __future__ import annotations

import math
import random

import pytest

from niwa.ladder import seat_stats
from niwa.ladder.seat_stats import kingmaker

A, B, C, D = 1, 2, 3, 4


def tables(third: int, ahead: int, behind: int) -> list[list[tuple[int, int]]]:
    """3-seat tables of A, B and ``third``: A first and B second ``ahead`` times, B first
    and A second ``behind`` times (the third party last)."""
    return [[(A, 0), (B, 1), (third, 2)]] * ahead + [[(A, 1), (B, 0), (third, 2)]] * behind


def test_the_flag_fires_when_a_third_party_turns_a_against_b() -> None:
    check = kingmaker(A, tables(C, 40, 10) + tables(D, 10, 40))
    assert check.flagged
    assert check.strongest is not None
    assert (check.strongest.other_id, check.strongest.decided_with) == (B, 50)
    assert check.strongest.p_adjusted < seat_stats.ALPHA


def test_the_flag_stays_down_when_a_beats_b_as_often_whoever_else_sits() -> None:
    check = kingmaker(A, tables(C, 25, 25) + tables(D, 25, 25))
    assert check.tests == 2
    assert not check.flagged


def test_a_p_value_under_the_threshold_alone_does_not_survive_the_correction() -> None:
    # 26 of 40 ahead with C against 14 of 40 with D: chi-squared 7.2, p 0.0073, two tests
    check = kingmaker(A, tables(C, 26, 14) + tables(D, 14, 26))
    assert check.strongest is not None
    assert check.strongest.p == pytest.approx(math.erfc(math.sqrt(3.6)))
    assert check.strongest.p < seat_stats.ALPHA
    assert check.tests == 2 and check.strongest.p_adjusted == pytest.approx(2 * check.strongest.p)
    assert not check.flagged


def test_too_few_tables_for_the_minimum_count_are_not_tested() -> None:
    check = kingmaker(A, tables(C, 4, 0) + tables(D, 0, 4))
    assert (check.tables, check.tests, check.flagged) == (8, 0, False)


def test_two_seat_tables_and_level_finishes_say_nothing_about_a_third_party() -> None:
    two_seats = [[(A, 0), (B, 1)]] * 50 + [[(A, 1), (B, 0)]] * 50
    level = [[(A, 0), (B, 0), (C, 2)]] * 50 + [[(A, 1), (B, 1), (D, 0)]] * 50
    check = kingmaker(A, two_seats + level)
    assert (check.tables, check.tests, check.flagged) == (100, 0, False)


def test_the_win_share_interval_is_wilsons() -> None:
    none = seat_stats.share(0, 10)
    assert (none.low, none.high) == (0.0, pytest.approx(0.2775, abs=1e-4))
    half = seat_stats.share(5, 10)
    assert half.value == 0.5 and half.low == pytest.approx(1 - half.high)


def test_mean_place_counts_from_one_with_a_normal_interval() -> None:
    # places 0, 1, 2, 1: mean 1 (2nd), sample variance 2/3
    got = seat_stats.places(4, place_sum=4, place_squares=6, firsts=1)
    assert got.mean_place == 2.0
    assert got.mean_ci95 == pytest.approx(1.959964 * math.sqrt(2 / 3 / 4), rel=1e-5)
    assert got.wins.hits == 1 and got.wins.n == 4


def test_one_match_has_no_interval_on_its_mean_place() -> None:
    assert seat_stats.places(1, 2, 4, 0).mean_ci95 == math.inf


def test_a_level_finish_counts_half_ahead() -> None:
    record = seat_stats.table_record(B, together=10, ahead=4, level=2)
    assert record.ahead.value == 0.5


def random_tables(
    rng: random.Random, tables: int, kingmaker_odds: float
) -> list[list[tuple[int, int]]]:
    """4-seat tables of A and three of the bots 2-7 in random order; whenever bot 3 (C)
    sits with A and B, B finishes ahead of A with probability ``kingmaker_odds``."""
    out = []
    for _ in range(tables):
        bots = [A, *rng.sample(range(2, 8), 3)]
        order = rng.sample(bots, 4)  # first to last
        if B in bots and C in bots:
            b_ahead = rng.random() < kingmaker_odds
            if (order.index(B) < order.index(A)) != b_ahead:
                i, j = order.index(A), order.index(B)
                order[i], order[j] = B, A
        out.append([(bot, order.index(bot)) for bot in bots])
    return out


def test_random_orders_are_flagged_about_as_rarely_as_the_threshold_says() -> None:
    rng = random.Random(29)
    flagged = sum(kingmaker(A, random_tables(rng, 1000, 0.5)).flagged for _ in range(40))
    assert flagged <= 2  # at most 1 % each (Bonferroni is conservative): 2 of 40 is rare


def test_a_third_bot_that_hands_b_the_edge_over_a_is_found() -> None:
    check = kingmaker(A, random_tables(random.Random(30), 2000, 0.8))
    assert check.flagged
    assert check.strongest is not None
    assert (check.strongest.other_id, check.strongest.third_id) == (B, C)
