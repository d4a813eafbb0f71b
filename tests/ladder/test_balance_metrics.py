"""Balance metrics on scripted matches, each value computed by hand."""

from __future__ import annotations

import pytest

from niwa.ladder.balance import (
    Running,
    decided_in_last_round,
    lead_changes,
    margin,
    spread,
)


def test_a_lead_passing_back_and_forth_counts_each_change() -> None:
    # leaders: {0}, {1}, {0}, {0} -> two changes
    assert lead_changes([(1, 0), (1, 2), (4, 2), (5, 3)]) == 2


def test_a_tie_is_its_own_lead_state() -> None:
    # leaders: {0}, {0,1}, {1} -> two changes
    assert lead_changes([(2, 1), (2, 2), (2, 3)]) == 2


def test_a_match_led_throughout_has_no_lead_change() -> None:
    assert lead_changes([(1, 0, 0), (3, 1, 2), (6, 2, 5)]) == 0


def test_a_winner_overtaking_in_the_last_round_decides_it_there() -> None:
    assert decided_in_last_round([(1, 0), (3, 4), (5, 4)], places=[1, 2])


def test_a_leader_keeping_the_order_did_not_decide_in_the_last_round() -> None:
    assert not decided_in_last_round([(1, 0, 0), (4, 2, 1), (6, 3, 1)], places=[1, 2, 3])


def test_a_swap_below_the_leader_in_the_last_round_still_counts() -> None:
    assert decided_in_last_round([(4, 2, 1), (6, 2, 3)], places=[1, 3, 2])


def test_the_margin_is_the_gap_between_first_and_second() -> None:
    assert margin([3, 9, 5]) == 4


def test_the_spread_is_the_standard_deviation_of_final_scores() -> None:
    assert spread([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.0)


def test_the_running_interval_matches_the_sample_mean_and_error() -> None:
    running = Running()
    for value in (1.0, 0.0, 1.0, 1.0):
        running.add(value)
    interval = running.interval()
    assert interval is not None
    assert interval.mean == pytest.approx(0.75)
    # sample variance 0.25, standard error 0.25
    assert interval.high - interval.mean == pytest.approx(1.959963984540054 * 0.25)


def test_no_matches_give_no_interval() -> None:
    assert Running().interval() is None
