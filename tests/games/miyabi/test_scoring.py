"""Scoring: the rulebook's examples, the layer-5 bonus, the end-game majorities with
their tie rules, the variants and the final ranking (miyabi.md §6, §7, §8)."""

from __future__ import annotations

from typing import Any

from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.rules import TYPES, rules_for
from niwa.engine.rulesets.miyabi.scoring import (
    big_meadow,
    colorful_garden,
    end_scoring,
    majority_points,
)
from tests.games.miyabi.scripted import kind, place, scripted


def majority(counts: list[int], **options: Any) -> list[int]:
    rules = rules_for(len(counts), GAME.info.validate(len(counts), options))
    return majority_points(rules, counts)


def test_the_first_tile_of_a_type_on_layer_5_earns_that_types_bonus_tile() -> None:
    state = scripted(gardens={0: [("single", "maple", 1)] * 4}, taken=("single", "maple"))
    place(state, 1, 1)
    assert state.gardens[0].score == 1 * 5 + 10
    assert state.gardens[0].bonuses == [0]
    assert "maple" not in state.observe(None)["bonus_tiles"]


def test_only_the_first_player_to_reach_layer_5_with_a_type_gets_its_bonus() -> None:
    towers = {0: [("single", "maple", 1)] * 4, 1: [("single", "maple", 2)] * 4}
    state = scripted(gardens=towers, middle=[("single", "maple")] * 2)
    state.apply({0: {"type": "take", "shape": "single", "object": "maple"}})
    place(state, 1, 1)
    state.apply({1: {"type": "take", "shape": "single", "object": "maple"}})
    place(state, 1, 2)
    assert [g.score for g in state.gardens] == [15, 5]


def test_by_default_only_layer_5_itself_earns_the_bonus() -> None:
    state = scripted(gardens={0: [("single", "maple", 1)] * 5}, taken=("single", "maple"))
    place(state, 1, 1)
    assert state.gardens[0].score == 6
    assert state.bonus_left[0]


def test_with_bonus_layer_mode_at_least_a_higher_layer_also_earns_the_bonus() -> None:
    state = scripted(
        options={"bonusLayerMode": "atLeast"},
        gardens={0: [("single", "maple", 1)] * 5},
        taken=("single", "maple"),
    )
    place(state, 1, 1)
    assert state.gardens[0].score == 6 + 10


def test_bonus_values_are_options() -> None:
    state = scripted(
        options={"bonusLayer5Points.stone": 12},
        gardens={0: [("single", "stone", 3)] * 4},
        taken=("single", "stone"),
    )
    place(state, 6, 3)
    assert state.gardens[0].score == 5 + 12


def test_most_objects_of_a_type_score_10_and_second_most_5() -> None:
    assert majority([5, 3, 0]) == [10, 5, 0]


def test_a_tie_for_most_pays_everyone_tied_the_most_value_and_no_second() -> None:
    assert majority([4, 4, 2]) == [10, 10, 0]


def test_tie_for_most_then_second_pays_the_next_count_second() -> None:
    assert majority([4, 4, 2], majorityTieFirst="allFirstThenSecond") == [10, 10, 5]


def test_tie_for_most_split_shares_both_values_rounded_down() -> None:
    assert majority([4, 4, 2], majorityTieFirst="split") == [7, 7, 0]


def test_a_tie_for_second_pays_everyone_tied_the_second_value() -> None:
    assert majority([6, 3, 3]) == [10, 5, 5]


def test_a_tie_for_second_can_split_or_pay_nothing() -> None:
    assert majority([6, 3, 3, 1], majorityTieSecond="split") == [10, 2, 2, 0]
    assert majority([6, 3, 3, 1], majorityTieSecond="none") == [10, 0, 0, 0]


def test_a_player_without_objects_of_a_type_takes_no_place() -> None:
    assert majority([3, 0]) == [10, 0]
    assert majority([0, 0]) == [0, 0]


def test_the_minimum_object_count_for_a_place_is_an_option() -> None:
    assert majority([3, 0], majorityMinObjects=0) == [10, 5]
    assert majority([3, 2], majorityMinObjects=3) == [10, 0]


def test_majority_values_are_options() -> None:
    assert majority([2, 1], **{"majorityPoints.first": 8, "majorityPoints.second": 3}) == [8, 3]


def test_covered_objects_do_not_count_for_the_majorities() -> None:
    covered = [("single", "pagoda", 2), ("single", "maple", 2), ("double", "maple", 2, 1)]
    state = scripted(gardens={0: covered, 1: [("single", "pagoda", 5)]})
    assert state.gardens[0].objects_by_type()[1] == 0
    end = end_scoring(state.rules, state.gardens)
    assert (end[0]["pagoda"], end[1]["pagoda"]) == (0, 10)


def test_covered_objects_count_when_the_option_says_so() -> None:
    covered = [("single", "pagoda", 2), ("single", "maple", 2), ("double", "maple", 2, 1)]
    state = scripted(
        options={"coveredObjectsCount": True},
        gardens={0: covered, 1: [("single", "pagoda", 5)] * 2},
    )
    end = end_scoring(state.rules, state.gardens)
    assert (end[0]["pagoda"], end[1]["pagoda"]) == (5, 10)


def test_the_game_ends_after_the_last_round_with_majority_scoring() -> None:
    state = scripted(
        round_=6,
        gardens={0: [("double", "fish", 1)], 1: [("single", "fish", 1)]},
        middle=[("single", "stone")],
        passed=[1],
    )
    state.gardens[0].score, state.gardens[1].score = 2, 1
    state.apply({0: {"type": "pass"}})
    assert state.is_over() and state.to_move() == ()
    assert state.gardens[0].end["fish"] == 10 and state.gardens[1].end["fish"] == 5
    assert state.result().scores == (12.0, 6.0)
    assert state.result().places == (0, 1)


def test_players_tied_on_points_share_the_place() -> None:
    state = scripted(round_=6, gardens={0: [("single", "fish", 1)], 1: [("single", "stone", 1)]})
    state.apply({0: {"type": "pass"}})
    state.apply({1: {"type": "pass"}})
    assert state.result().scores == (10.0, 10.0)
    assert state.result().places == (0, 0)


GROUPS = [
    ("double", "maple", 1, 0),  # 2 maples at (1,1), green (1,2)
    ("single", "pagoda", 1),  # (2,1)
    ("single", "fish", 1),  # (3,1)
    ("single", "fish", 1),  # (3,1) again: layer 2 does not break the group
    ("straight", "stone", 6, 3),  # 3 stones at (6,6), green (5,6), (4,6)
]


def test_the_colorful_garden_counts_the_largest_connected_group_of_objects() -> None:
    state = scripted(gardens={0: GROUPS})
    assert colorful_garden(state.gardens[0]) == 2 + 1 + 1


def test_the_big_meadow_counts_the_largest_connected_group_of_green_cells() -> None:
    state = scripted(gardens={0: [*GROUPS, ("double", "pagoda", 3, 2)]})  # green (2,2)
    assert big_meadow(state.gardens[0]) == 2  # (1,2)-(2,2); (5,6)-(4,6) is also 2


def test_the_variants_add_their_points_at_the_end_when_switched_on() -> None:
    state = scripted(options={"colorfulGarden": True, "bigMeadow": True}, gardens={0: GROUPS})
    end = end_scoring(state.rules, state.gardens)
    assert end[0]["colorful_garden"] == 4 and end[0]["big_meadow"] == 2 * 2


def test_the_variant_point_values_are_options() -> None:
    options = {
        "colorfulGarden": True,
        "colorfulGarden.pointsPerObject": 3,
        "bigMeadow": True,
        "bigMeadow.pointsPerCell": 5,
    }
    state = scripted(options=options, gardens={0: GROUPS})
    end = end_scoring(state.rules, state.gardens)
    assert end[0]["colorful_garden"] == 4 * 3 and end[0]["big_meadow"] == 2 * 5


def test_the_variants_are_off_by_default() -> None:
    state = scripted(gardens={0: GROUPS})
    assert set(end_scoring(state.rules, state.gardens)[0]) == set(TYPES)


def test_a_tile_on_layer_5_earns_only_the_bonus_tile_of_its_own_type() -> None:
    state = scripted(gardens={0: [("single", "pagoda", 1)] * 4}, taken=("single", "pagoda"))
    place(state, 2, 1)
    assert state.gardens[0].score == 5 + 9
    assert state.bonus_left == [True, False, True, True, True, True]


def test_a_seat_can_collect_the_bonus_tiles_of_several_types() -> None:
    towers = [("single", "maple", 1)] * 4 + [("single", "stone", 2)] * 4
    state = scripted(gardens={0: towers}, taken=("single", "maple"))
    place(state, 1, 1)
    state.apply({1: {"type": "pass"}})
    state.display[kind("single", "stone")] += 1
    state.apply({0: {"type": "take", "shape": "single", "object": "stone"}})
    place(state, 6, 2)
    assert state.gardens[0].bonuses == [0, 5] and state.gardens[0].score == 5 + 10 + 5 + 5


def test_a_bare_board_cell_breaks_a_group_of_objects() -> None:
    state = scripted(gardens={0: [("single", "maple", 1), ("single", "maple", 3)]})
    assert colorful_garden(state.gardens[0]) == 1  # (1,2) is bare board


def test_a_bare_board_cell_breaks_a_meadow() -> None:
    state = scripted(gardens={0: [("double", "maple", 1, 0), ("double", "maple", 5, 2)]})
    assert big_meadow(state.gardens[0]) == 1  # green (1,2) and (1,4); (1,3) is bare board
