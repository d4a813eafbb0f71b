"""Seatings and tournament groups."""

from __future__ import annotations

import random

from niwa.series import schedule


def test_two_bots_rotate_into_both_seats() -> None:
    assert schedule.rotations(["A", "B"]) == [("A", "B"), ("B", "A")]


def test_seats_beyond_the_bots_come_from_the_field_in_turn() -> None:
    assert schedule.lineup(["A", "B"], 4, ["F"]) == ["A", "B", "F", "F"]
    assert schedule.lineup(["A", "B"], 5, ["F", "G"]) == ["A", "B", "F", "G", "F"]


def test_without_a_field_the_bots_fill_the_seats_evenly() -> None:
    assert schedule.lineup(["A", "B"], 4, []) == ["A", "B", "A", "B"]
    # A B A B has only two distinct rotations: no game is played twice in one deal
    assert schedule.rotations(["A", "B", "A", "B"]) == [("A", "B", "A", "B"), ("B", "A", "B", "A")]


def test_pairs_play_each_deal_in_every_rotation_back_to_back() -> None:
    games = list(schedule.series_seatings(["A", "B"], 4, pairs=True, seed=7))
    assert [(deal, seating) for deal, _, seating in games] == [
        (0, ("A", "B")), (0, ("B", "A")), (1, ("A", "B")), (1, ("B", "A"))]
    assert games[0][1] == games[1][1] != games[2][1] == games[3][1]


def test_without_pairs_every_game_has_its_own_deal() -> None:
    games = list(schedule.series_seatings(["A", "B"], 4, pairs=False, seed=7))
    assert len({seed for _, seed, _ in games}) == 4
    assert [s for _, _, s in games] == [("A", "B"), ("B", "A")] * 2


def test_game_seeds_follow_from_the_series_seed() -> None:
    assert schedule.game_seed(1, 0) == schedule.game_seed(1, 0) != schedule.game_seed(2, 0)
    assert 0 <= schedule.game_seed(1, 5) < 2**31


def test_round_robin_meets_every_pairing_and_gauntlet_only_the_first_bot() -> None:
    assert schedule.round_robin_groups("ABC", 2) == [("A", "B"), ("A", "C"), ("B", "C")]
    assert schedule.gauntlet_groups("ABCD", 2) == [("A", "B"), ("A", "C"), ("A", "D")]
    assert schedule.gauntlet_groups("ABCD", 3) == [("A", "B", "C"), ("A", "B", "D"),
                                                   ("A", "C", "D")]


def test_swiss_pairs_similar_points_who_have_not_met() -> None:
    points = {"A": 3.0, "B": 3.0, "C": 1.0, "D": 0.0}
    groups, bye = schedule.swiss_groups("ABCD", 2, points, {}, random.Random(0))
    assert sorted(map(sorted, groups)) == [["A", "B"], ["C", "D"]] and bye == []
    # A and B have met: each takes the next best bot it has not met
    met = {frozenset("AB"): 1, frozenset("CD"): 1}
    groups, _ = schedule.swiss_groups("ABCD", 2, points, met, random.Random(0))
    assert all(frozenset(g) not in met for g in groups)


def test_swiss_leaves_the_last_ranked_bot_out_of_an_odd_round() -> None:
    points = {"A": 2.0, "B": 1.0, "C": 0.0}
    _, bye = schedule.swiss_groups("ABC", 2, points, {}, random.Random(0))
    assert bye == ["C"]


def test_swiss_gives_the_next_bye_to_a_bot_that_has_not_had_one() -> None:
    points = {"A": 2.0, "B": 1.0, "C": 0.0}
    groups, bye = schedule.swiss_groups("ABC", 2, points, {}, random.Random(0), {"C": 1})
    assert bye == ["B"] and groups == [("A", "C")]
