"""Placement rules on scripted gardens (miyabi.md §5.3 P1-P11, §3.1 rotation)."""

from __future__ import annotations

import random
from typing import Any

from niwa.engine import CHANCE, IllegalAction, sample_chance
from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.moves import parse_placement
from niwa.engine.rulesets.miyabi.state import MiyabiState
from tests.games.miyabi.scripted import place, refusal, scripted


def places(state: MiyabiState) -> list[tuple[int, int, int]]:
    actions = state.legal_actions(state.current)
    return [(a["row"], a["col"], a["rotation"]) for a in actions]


def test_a_single_tile_fits_its_row_in_every_column_with_an_empty_lantern_field() -> None:
    state = scripted(taken=("single", "fish"))
    assert places(state) == [(3, c, 0) for c in range(1, 7)]


def test_objects_must_lie_in_the_row_of_their_type() -> None:
    state = scripted(taken=("single", "pagoda"))
    e = refusal(state, {"type": "place", "row": 3, "col": 2, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P1"


def test_objects_need_a_column_whose_lantern_field_is_empty() -> None:
    state = scripted(taken=("single", "pagoda"), lanterns={0: [3]})
    assert (2, 3, 0) not in places(state)
    e = refusal(state, {"type": "place", "row": 2, "col": 3, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P2"


def test_green_cells_may_lie_in_a_column_whose_lantern_field_is_filled() -> None:
    state = scripted(taken=("double", "pagoda"), lanterns={0: [4]})
    place(state, 2, 3, 0)  # objects at (2,3), green cell at (2,4)
    assert state.gardens[0].heights[1 * 6 + 3] == 1


def test_green_cells_may_lie_in_another_objects_row() -> None:
    state = scripted(taken=("double", "maple"))
    place(state, 1, 1, 1)  # objects at (1,1), green cell below at (2,1), the pagoda row
    assert state.gardens[0].heights[6] == 1


def test_a_tile_must_not_stick_out_of_the_grid() -> None:
    state = scripted(taken=("double", "maple"))
    assert refusal(state, {"type": "place", "row": 1, "col": 6, "rotation": 0}).rule == (
        "miyabi.md §5.3 P4"
    )
    assert refusal(state, {"type": "place", "row": 1, "col": 2, "rotation": 3}).rule == (
        "miyabi.md §5.3 P4"
    )
    # right: columns 1-5; down: 1-6; left: 2-6; up: none from the top row
    assert len(places(state)) == 5 + 6 + 5


def test_a_tile_on_top_may_not_rest_partly_on_the_bare_board() -> None:
    state = scripted(gardens={0: [("single", "maple", 1)]}, taken=("double", "maple"))
    e = refusal(state, {"type": "place", "row": 1, "col": 1, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P6"


def test_a_tile_must_rest_flat_on_one_level() -> None:
    garden = [("single", "fish", 1), ("single", "fish", 1), ("single", "fish", 2)]
    state = scripted(gardens={0: garden}, taken=("double", "fish"))  # heights 2 and 1
    e = refusal(state, {"type": "place", "row": 3, "col": 1, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P6"
    assert (3, 1, 0) not in places(state)


def test_a_tile_may_straddle_several_tiles_of_one_height() -> None:
    state = scripted(
        gardens={0: [("single", "maple", 1), ("double", "maple", 2)]}, taken=("straight", "maple")
    )
    place(state, 1, 1, 0)  # on a single and a double, all at height 1
    assert state.gardens[0].tiles[-1].layer == 2
    assert state.gardens[0].score == 3 * 2


def test_objects_on_lower_tiles_may_be_covered_even_your_own() -> None:
    garden = [("single", "maple", 2), ("single", "pagoda", 2)]
    state = scripted(gardens={0: garden}, taken=("double", "maple"))
    place(state, 1, 2, 1)  # covers the maple and the pagoda below it
    assert state.gardens[0].objects_by_type() == [2, 0, 0, 0, 0, 0]


def test_the_layer_is_one_more_than_the_height_beneath() -> None:
    state = scripted(gardens={0: [("single", "stone", 4)] * 3}, taken=("single", "stone"))
    place(state, 6, 4)
    assert state.gardens[0].tiles[-1].layer == 4


def test_placing_fills_the_lantern_field_of_the_objects_column_only() -> None:
    state = scripted(taken=("double", "pagoda"))
    place(state, 2, 3, 2)  # objects at (2,3), green cell to the left at (2,2)
    assert state.gardens[0].lanterns == [False, False, True, False, False, False]


def test_a_single_has_one_orientation_and_a_double_four() -> None:
    single = scripted(taken=("single", "azalea"))
    assert {r for _, _, r in places(single)} == {0}
    assert refusal(single, {"type": "place", "row": 4, "col": 1, "rotation": 1}).rule == (
        "miyabi.md §3.1"
    )
    double = scripted(taken=("double", "azalea"))
    assert {r for _, _, r in places(double)} == {0, 1, 2, 3}


def test_without_rotation_tiles_lie_only_as_printed() -> None:
    state = scripted(options={"allowRotation": False}, taken=("double", "azalea"))
    assert places(state) == [(4, c, 0) for c in range(1, 6)]


def test_the_corner_triple_shows_its_objects_on_the_corner_cell() -> None:
    state = scripted(taken=("corner", "azalea"))
    place(state, 4, 6, 1)  # corner at (4,6): cells below (5,6) and left (4,5)
    heights = state.gardens[0].heights
    assert [heights[i] for i in (3 * 6 + 5, 4 * 6 + 5, 3 * 6 + 4)] == [1, 1, 1]


def test_a_straight_triple_with_its_objects_in_the_middle_has_two_orientations() -> None:
    state = scripted(options={"objectCell.straight": "middle"}, taken=("straight", "fish"))
    assert {r for _, _, r in places(state)} == {0, 1}
    assert refusal(state, {"type": "place", "row": 3, "col": 1, "rotation": 0}).rule == (
        "miyabi.md §5.3 P4"
    )


def test_a_corner_triple_with_its_objects_on_an_end_cell_lies_beside_its_corner() -> None:
    state = scripted(options={"objectCell.corner": "end"}, taken=("corner", "fish"))
    assert {r for _, _, r in places(state)} == {0, 1, 2, 3}
    place(state, 3, 2, 0)  # objects at (3,2); the corner at (3,1) and (4,1) below it
    assert state.observe(None)["gardens"][0]["tiles"][0]["cells"] == [[3, 2], [3, 1], [4, 1]]


def test_max_layer_limits_stacking_when_set() -> None:
    garden = [("single", "stone", 1)] * 2
    state = scripted(options={"maxLayer": 2}, gardens={0: garden}, taken=("single", "stone"))
    e = refusal(state, {"type": "place", "row": 6, "col": 1, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P11"


def test_there_is_no_height_limit_by_default() -> None:
    state = scripted(gardens={0: [("single", "stone", 1)] * 7}, taken=("single", "stone"))
    place(state, 6, 1)
    assert state.gardens[0].tiles[-1].layer == 8


def blocked_maple_row() -> dict[str, Any]:
    """Only column 6 has an empty lantern field, and (1,6) is one tile high."""
    return {"gardens": {0: [("single", "maple", 6)]}, "lanterns": {0: [1, 2, 3, 4, 5]}}


def test_only_tiles_that_fit_somewhere_are_offered() -> None:
    state = scripted(middle=[("single", "maple"), ("straight", "maple")], **blocked_maple_row())
    assert state.legal_actions(0) == [
        {"type": "take", "shape": "single", "object": "maple"},
        {"type": "pass"},
    ]
    e = refusal(state, {"type": "take", "shape": "straight", "object": "maple"})
    assert e.rule == "miyabi.md §5.3"


def test_a_player_who_cannot_place_any_tile_must_pass() -> None:
    state = scripted(middle=[("straight", "maple")], **blocked_maple_row())
    assert state.legal_actions(0) == [{"type": "pass"}]


def test_a_voluntary_pass_is_allowed_by_default() -> None:
    state = scripted(middle=[("single", "fish")])
    assert {"type": "pass"} in state.legal_actions(0)
    state.apply({0: {"type": "pass"}})
    assert state.gardens[0].passed


def test_without_voluntary_pass_a_player_must_place_while_a_tile_fits() -> None:
    state = scripted(options={"voluntaryPass": False}, middle=[("single", "fish")])
    assert state.legal_actions(0) == [{"type": "take", "shape": "single", "object": "fish"}]
    assert refusal(state, {"type": "pass"}).rule == "miyabi.md §5.2"


def test_a_tile_must_be_in_the_middle_to_be_taken() -> None:
    state = scripted(middle=[("single", "fish")])
    e = refusal(state, {"type": "take", "shape": "double", "object": "fish"})
    assert e.rule == "miyabi.md §5.2"


def test_taking_a_tile_moves_it_from_the_middle_to_the_placing_step() -> None:
    state = scripted(middle=[("single", "fish"), ("single", "fish")])
    state.apply({0: {"type": "take", "shape": "single", "object": "fish"}})
    assert state.phase == "place" and state.to_move() == (0,)
    assert state.observe(None)["display"]["single"] == {"fish": 1}
    assert state.observe(None)["chosen"] == {"shape": "single", "object": "fish"}


def test_a_column_given_as_true_is_refused_rather_than_read_as_column_1() -> None:
    state = scripted(taken=("single", "fish"))
    assert {"type": "place", "row": 3, "col": 1, "rotation": 0} in state.legal_actions(0)
    e = refusal(state, {"type": "place", "row": 3, "col": True, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P4"


def test_a_refused_move_leaves_the_legal_actions_as_they_were() -> None:
    state = scripted(middle=[("single", "fish"), ("double", "stone")])
    before = state.legal_actions(0)
    refusal(state, {"type": "take", "shape": "corner", "object": "fish"})
    assert state.legal_actions(0) == before


def test_a_clone_offers_the_same_actions_and_moves_on_alone() -> None:
    state = scripted(middle=[("single", "fish"), ("double", "stone")])
    state.legal_actions(0)
    copy = state.clone()
    copy.apply({0: {"type": "take", "shape": "single", "object": "fish"}})
    assert copy.phase == "place" and state.phase == "choose"
    assert state.legal_actions(0) == [
        {"type": "take", "shape": "single", "object": "fish"},
        {"type": "take", "shape": "double", "object": "stone"},
        {"type": "pass"},
    ]


def spot(action: dict[str, Any]) -> tuple[int, int, int]:
    return action["row"], action["col"], action["rotation"]


def test_the_offered_placements_are_exactly_those_the_rule_checks_accept() -> None:
    """On gardens grown by random play, every (row, col, rotation) is either offered and
    accepted by the §5.3 checks, or refused by them and not offered."""
    rng = random.Random(12)
    state = GAME.new_game(3)
    checked = 0
    while checked < 60:
        if state.is_over():
            state = GAME.new_game(3)
        seat = state.to_move()[0]
        if seat == CHANCE:
            state.apply({CHANCE: sample_chance(state, rng)})
            continue
        if state.phase == "place":
            offered = state.legal_actions(seat)
            accepted = []
            for row in range(1, 7):
                for col in range(1, 7):
                    for rotation in range(4):
                        action = {"type": "place", "row": row, "col": col, "rotation": rotation}
                        try:
                            parse_placement(state, seat, action)
                        except IllegalAction:
                            continue
                        accepted.append(action)
            assert sorted(offered, key=spot) == sorted(accepted, key=spot)
            checked += 1
        state.apply({seat: rng.choice(state.legal_actions(seat))})
