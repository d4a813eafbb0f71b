"""Elo maths against values computed by hand (niwa/ladder/elo.py)."""

from __future__ import annotations

import math
import random

import pytest

from niwa.ladder import elo, mle
from tests.ladder import elo_before


def test_expected_score_of_equal_ratings_is_a_half() -> None:
    assert elo.expected(1500, 1500) == 0.5


def test_expected_score_200_points_up_is_0_7597() -> None:
    # 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316228) = 0.759747
    assert elo.expected(1600, 1400) == pytest.approx(0.759747, abs=1e-6)


def test_two_equal_players_winner_gains_half_of_k() -> None:
    # E = 0.5, K = 32: 32 * (1 - 0.5) = 16
    assert elo.update([1500, 1500], [0, 1]) == [1516.0, 1484.0]


def test_favourite_winning_gains_k_times_its_surprise() -> None:
    # 32 * (1 - 0.759747) = 7.688
    after = elo.update([1600, 1400], [0, 1])
    assert after == pytest.approx([1607.688, 1392.312], abs=1e-3)


def test_shared_place_is_a_draw_that_costs_the_favourite() -> None:
    # 32 * (0.5 - 0.759747) = -8.312
    after = elo.update([1600, 1400], [0, 0])
    assert after == pytest.approx([1591.688, 1408.312], abs=1e-3)


def test_three_seats_count_as_pairs_each_worth_k_over_two() -> None:
    # First beats both (+0.5 +0.5) * 16 = +16; second: (-0.5 + 0.5) * 16 = 0; third: -16.
    assert elo.update([1500, 1500, 1500], [0, 1, 2]) == [1516.0, 1500.0, 1484.0]


def test_update_keeps_the_rating_total() -> None:
    before = [1620.0, 1480.0, 1550.0, 1390.0]
    after = elo.update(before, [2, 0, 0, 3])
    assert sum(after) == pytest.approx(sum(before))


def test_batch_elo_three_wins_in_four_is_400_log10_3_apart() -> None:
    # p = 3/4 -> difference 400 log10(3) = 190.849; the mean stays at 1500.
    matches = [[("A", 0), ("B", 1)]] * 3 + [[("A", 1), ("B", 0)]]
    ratings = mle.batch_elo(matches, prior_games=0)
    assert ratings["A"].elo == pytest.approx(1595.424, abs=1e-3)
    assert ratings["B"].elo == pytest.approx(1404.576, abs=1e-3)


def test_batch_elo_interval_comes_from_the_fisher_information() -> None:
    # Information about the difference d (Elo points): n p (1-p) c^2 with n = 4, p = 3/4,
    # c = ln 10 / 400 = 0.00575646: 0.75 * 3.31369e-5 -> var(d) = 40236.9.
    # Each rating is ±d/2 around the fixed mean: sd = sqrt(40236.9 / 4) = 100.296;
    # 95 %: 1.95996 * 100.296 = 196.58.
    matches = [[("A", 0), ("B", 1)]] * 3 + [[("A", 1), ("B", 0)]]
    ratings = mle.batch_elo(matches, prior_games=0)
    assert ratings["A"].ci95 == pytest.approx(196.58, abs=0.01)
    assert ratings["B"].ci95 == pytest.approx(196.58, abs=0.01)


def test_batch_elo_interval_shrinks_like_one_over_root_n() -> None:
    four = [[("A", 0), ("B", 1)]] * 3 + [[("A", 1), ("B", 0)]]
    sixteen = four * 4
    wide = mle.batch_elo(four, prior_games=0)["A"].ci95
    narrow = mle.batch_elo(sixteen, prior_games=0)["A"].ci95
    assert narrow == pytest.approx(wide / 2)


def test_batch_elo_prior_keeps_an_unbeaten_bot_finite_and_symmetric() -> None:
    # A beat B three times; one virtual draw each against a 1500 anchor.
    ratings = mle.batch_elo([[("A", 0), ("B", 1)]] * 3, prior_games=1)
    assert math.isfinite(ratings["A"].elo)
    assert ratings["A"].elo - 1500 == pytest.approx(1500 - ratings["B"].elo)
    assert ratings["A"].elo > 1600


def test_batch_elo_multiplayer_match_weighs_each_pair_one_over_n_minus_one() -> None:
    # One 3-seat match A > B > C equals, pair by pair, half a game each way:
    # the same data as 2-seat matches A>B, B>C, A>C each of weight 1/2.
    three = [[("A", 0), ("B", 1), ("C", 2)], [("C", 0), ("B", 1), ("A", 2)]] * 2
    pairs = [
        m
        for x, y in [("A", "B"), ("B", "C"), ("A", "C")]
        for m in ([(x, 0), (y, 1)], [(y, 0), (x, 1)])
    ]
    batch = mle.batch_elo(three, prior_games=0)
    twos = mle.batch_elo(pairs, prior_games=0)
    for bot in "ABC":
        assert batch[bot].elo == pytest.approx(twos[bot].elo, abs=1e-6)
        assert batch[bot].ci95 == pytest.approx(twos[bot].ci95)
        assert batch[bot].elo == pytest.approx(1500.0, abs=1e-6)


def test_solve_finds_the_exact_solution() -> None:
    assert elo_before.solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])


def test_batch_elo_ratings_average_to_the_base() -> None:
    matches = [[("A", 0), ("B", 1), ("C", 2)]] * 5 + [[("B", 0), ("A", 1)]] * 2
    ratings = mle.batch_elo(matches)
    assert sum(e.elo for e in ratings.values()) / 3 == pytest.approx(1500.0)


def test_batch_elo_interval_is_each_bot_against_the_mean() -> None:
    # Three bots, every pair 20 games split 10-10. Information per pair: 20 * c^2 / 4
    # = 5 c^2, so the information matrix is 5 c^2 (3I - J); on ratings with a fixed mean
    # its inverse is P / (15 c^2), P = I - J/3, whose diagonal is 2/3:
    # var = 2 / (45 c^2) = 2 / (45 * 3.31369e-5) = 1341.2 -> sd 36.62 -> 95 %: ±71.78.
    won = [[("A", 0), ("B", 1)], [("B", 0), ("C", 1)], [("C", 0), ("A", 1)]]
    lost = [[("B", 0), ("A", 1)], [("C", 0), ("B", 1)], [("A", 0), ("C", 1)]]
    ratings = mle.batch_elo((won + lost) * 10, prior_games=0)
    for estimate in ratings.values():
        assert estimate.elo == pytest.approx(1500.0)
        assert estimate.ci95 == pytest.approx(71.78, abs=0.01)


def test_batch_elo_anchor_draws_do_not_widen_the_interval() -> None:
    # The anchor leaves the common level of all ratings loosely known; a shift of
    # everyone is not uncertainty about one bot, so the interval stays near ±71.78.
    won = [[("A", 0), ("B", 1)], [("B", 0), ("C", 1)], [("C", 0), ("A", 1)]]
    lost = [[("B", 0), ("A", 1)], [("C", 0), ("B", 1)], [("A", 0), ("C", 1)]]
    ratings = mle.batch_elo((won + lost) * 10, prior_games=1)
    for estimate in ratings.values():
        assert estimate.ci95 == pytest.approx(71.78, abs=1.0)


@pytest.mark.parametrize("prior_games", [1.0, 0.0])
def test_batch_elo_equals_the_fit_before_stored_totals_on_random_matches(
    prior_games: float,
) -> None:
    rng = random.Random(14)
    matches = []
    for _ in range(600):
        seats = rng.sample(range(25), rng.randint(2, 5))
        matches.append([(bot, rng.randint(0, len(seats) - 1)) for bot in seats])
    before = elo_before.batch_elo(matches, prior_games=prior_games)
    now = mle.batch_elo(matches, prior_games=prior_games)
    assert now.keys() == before.keys()
    for bot, estimate in before.items():
        assert now[bot].elo == pytest.approx(estimate.elo, abs=1e-6)
        assert now[bot].ci95 == pytest.approx(estimate.ci95, abs=1e-6)
