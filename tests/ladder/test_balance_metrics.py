"""Balance figures on scripted matches, each value computed by hand. Histories are the
scores at the end of each round, the final scores last; places count from 0."""

from __future__ import annotations

import pytest

from niwa.ladder.balance import (
    MatchBalance,
    Running,
    lead_changes,
    margin,
    order_decided_late,
    ranks,
    spread,
    win_shares,
    winner_decided_late,
)


def test_a_lead_passing_back_and_forth_counts_each_change() -> None:
    # leaders: {0}, {1}, {0}, {0} -> two changes
    assert lead_changes([(1, 0), (1, 2), (4, 2), (5, 3)]) == 2


def test_a_tie_is_its_own_lead_state() -> None:
    # leaders: {0}, {0,1}, {1} -> two changes
    assert lead_changes([(2, 1), (2, 2), (2, 3)]) == 2


def test_a_match_led_throughout_has_no_lead_change() -> None:
    assert lead_changes([(1, 0, 0), (3, 1, 2), (6, 2, 5)]) == 0


def test_the_first_lead_taken_is_no_change() -> None:
    assert lead_changes([(0, 3)]) == 0


def test_a_winner_overtaking_in_the_last_round_decided_it_late() -> None:
    # seat 1 led 4-3 when the last round began; seat 0 won 5-4
    assert winner_decided_late([(1, 0), (3, 4), (5, 4)], (0, 0), places=[0, 1])


def test_a_leader_keeping_the_lead_did_not_decide_it_late() -> None:
    assert not winner_decided_late([(1, 0, 0), (4, 2, 1), (6, 3, 1)], (0, 0, 0), [0, 1, 2])


def test_a_shared_lead_turned_into_a_win_was_decided_late() -> None:
    assert winner_decided_late([(3, 3), (5, 3)], (0, 0), places=[0, 1])


def test_a_one_round_match_starts_its_last_round_all_level() -> None:
    assert winner_decided_late([(2, 1)], (0, 0), places=[0, 1])


def test_a_swap_below_the_leader_in_the_last_round_changed_the_order() -> None:
    history = [(4, 2, 1), (6, 2, 3)]
    assert not winner_decided_late(history, (0, 0, 0), [0, 2, 1])
    assert order_decided_late(history, (0, 0, 0), [0, 2, 1])


def test_an_order_kept_through_the_last_round_was_not_changed() -> None:
    assert not order_decided_late([(4, 2, 1), (6, 3, 1)], (0, 0, 0), [0, 1, 2])


def test_a_tie_broken_by_the_rules_at_the_end_changed_the_order() -> None:
    # seats 1 and 2 were level at 2 and stay level; the tie-break puts seat 2 second
    assert order_decided_late([(5, 2, 2), (7, 3, 3)], (0, 0, 0), [0, 2, 1])


def test_tied_scores_share_the_better_rank() -> None:
    assert ranks([3, 5, 3, 1]) == (1, 0, 1, 3)


def test_a_shared_win_splits_the_win_between_the_winners() -> None:
    assert win_shares([0, 0, 2]) == (0.5, 0.5, 0.0)


def test_the_margin_is_the_gap_between_first_and_second() -> None:
    assert margin([3, 9, 5]) == 4


def test_one_seat_has_no_margin() -> None:
    assert margin([7]) == 0


def test_the_spread_is_the_standard_deviation_of_final_scores() -> None:
    assert spread([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.0)


def test_a_match_with_round_scores_gives_every_figure() -> None:
    figures = MatchBalance.of([1, 0], [4, 5], (0, 0), [(1, 0), (3, 4), (4, 5)], steps=12)
    assert figures.match_values() == {
        "steps": 12.0, "rounds": 3.0, "margin": 1.0, "spread": 0.5,
        "lead_changes": 1.0, "winner_late": 0.0, "order_late": 0.0,
    }  # fmt: skip
    assert figures.seat_values() == [{"win": 0.0, "place": 2.0}, {"win": 1.0, "place": 1.0}]


def test_a_game_without_running_scores_counts_decisions_as_rounds_and_no_lead() -> None:
    figures = MatchBalance.of([0, 1], [3, 1], None, None, steps=9)
    assert figures.rounds == 9
    assert figures.lead_changes is None
    assert set(figures.match_values()) == {"steps", "rounds", "margin", "spread"}


def test_the_running_interval_matches_the_sample_mean_and_error() -> None:
    running = Running()
    for value in (1.0, 0.0, 1.0, 1.0):
        running.add(value)
    interval = running.interval()
    assert interval is not None
    assert interval.mean == pytest.approx(0.75)
    # sample variance 0.25, standard error 0.25
    assert interval.high - interval.mean == pytest.approx(1.959963984540054 * 0.25)


def test_one_match_gives_a_point_interval() -> None:
    running = Running()
    running.add(3.0)
    interval = running.interval()
    assert interval is not None
    assert (interval.low, interval.mean, interval.high) == (3.0, 3.0, 3.0)


def test_no_matches_give_no_interval() -> None:
    assert Running().interval() is None


def test_a_share_interval_is_wilsons_and_stays_within_0_and_1() -> None:
    running = Running()
    for value in (1.0, 1.0, 1.0, 0.0):
        running.add(value)
    interval = running.share_interval()
    assert interval is not None
    # Wilson, n = 4, p = 0.75, z = 1.96: 0.301 to 0.954
    assert (interval.low, interval.high) == (pytest.approx(0.3006, abs=1e-3),
                                             pytest.approx(0.9544, abs=1e-3))  # fmt: skip


def test_a_share_of_every_match_is_no_point_interval() -> None:
    running = Running()
    running.add(1.0)
    running.add(1.0)
    interval = running.share_interval()
    assert interval is not None
    assert interval.high == 1.0
    assert interval.low < 0.5
