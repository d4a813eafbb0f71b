"""The worked examples of the rulebook's pages 4-5 (docs/games/miyabi.md)."""

from __future__ import annotations

from tests.games.miyabi.scripted import place, refusal, scripted


def test_the_tile_with_3_pagodas_on_layer_1_scores_3_points() -> None:
    state = scripted(taken=("corner", "pagoda"))
    place(state, 2, 3, 0)
    assert state.gardens[0].score == 3 * 1


def test_the_tile_with_2_fish_in_a_pond_on_layer_2_scores_4_points_in_a_later_round() -> None:
    state = scripted(round_=2, gardens={0: [("double", "fish", 2)]}, taken=("double", "fish"))
    place(state, 3, 2, 0)
    assert state.gardens[0].tiles[-1].layer == 2
    assert state.gardens[0].score == 2 * 2


def test_in_a_pond_each_fish_counts_as_an_object() -> None:
    state = scripted(taken=("straight", "fish"))
    place(state, 3, 1, 0)
    assert state.gardens[0].score == 3
    assert state.gardens[0].objects_by_type()[2] == 3


def test_the_illustrated_wrong_row_is_refused() -> None:
    state = scripted(taken=("double", "boxwood"))
    e = refusal(state, {"type": "place", "row": 4, "col": 2, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P1"


def test_the_illustrated_tile_protruding_beyond_the_grid_is_refused() -> None:
    state = scripted(taken=("straight", "stone"))
    e = refusal(state, {"type": "place", "row": 6, "col": 5, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P4"


def test_the_illustrated_occupied_lantern_field_is_refused() -> None:
    state = scripted(taken=("single", "azalea"), lanterns={0: [2]})
    e = refusal(state, {"type": "place", "row": 4, "col": 2, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P2"


def test_the_lantern_goes_on_the_column_the_objects_were_played_into() -> None:
    state = scripted(taken=("corner", "maple"))
    place(state, 1, 4, 1)  # objects at (1,4); green cells at (2,4) and (1,3)
    assert [c + 1 for c, lit in enumerate(state.gardens[0].lanterns) if lit] == [4]


def test_a_tile_on_top_must_lie_entirely_on_placed_tiles() -> None:
    state = scripted(gardens={0: [("double", "pagoda", 1)]}, taken=("straight", "pagoda"))
    e = refusal(state, {"type": "place", "row": 2, "col": 1, "rotation": 0})
    assert e.rule == "miyabi.md §5.3 P6"
    place(state, 2, 4, 0)  # beside it instead, on the bare board
    assert state.gardens[0].tiles[-1].layer == 1


def test_a_player_who_cannot_place_passes_while_the_others_continue() -> None:
    state = scripted(
        middle=[("straight", "maple")] * 2,
        gardens={0: [("single", "maple", 6)]},
        lanterns={0: [1, 2, 3, 4, 5]},
    )
    assert state.legal_actions(0) == [{"type": "pass"}]  # (1,6) is a tile higher than (1,5)
    state.apply({0: {"type": "pass"}})
    assert state.to_move() == (1,) and state.round == 1
    state.apply({1: {"type": "take", "shape": "straight", "object": "maple"}})
    place(state, 1, 1, 0)
    assert state.to_move() == (1,)  # seat 0 is out for the rest of the round
