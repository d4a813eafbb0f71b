"""Observation, snapshots, determinize, text rendering, narration, options and info."""

from __future__ import annotations

import json
import random

import pytest

from niwa.engine import CHANCE, OptionError
from niwa.engine.rulesets.miyabi import GAME
from tests.games.miyabi.scripted import place, scripted

GARDEN = [
    ("single", "maple", 1),
    ("single", "maple", 2),
    ("double", "maple", 1, 0),  # layer 2 over both singles
    ("straight", "stone", 6, 3),  # stones at (6,6), green up the column
    ("corner", "pagoda", 3, 0),
]


def test_the_garden_renders_each_cell_with_what_is_on_top_and_its_layer() -> None:
    state = scripted(gardens={0: GARDEN}, lanterns={0: [1, 6]})
    lines = state.render(0).splitlines()
    start = lines.index("Seat 0 (you): 0 points")
    assert lines[start + 1 : start + 9] == [
        " lantern   L  .  .  .  .  L",
        "           1  2  3  4  5  6",
        "1 maple   M2 g2  .  .  .  .   2 visible",
        "2 pagoda   .  . P1 g1  .  .   3 visible",
        "3 fish     .  . g1  .  .  .   0 visible",
        "4 azalea   .  .  .  .  . g1   0 visible",
        "5 boxwood  .  .  .  .  . g1   0 visible",
        "6 stone    .  .  .  .  . S1   3 visible",
    ]


def test_the_table_shows_the_round_the_middle_and_the_bonus_tiles() -> None:
    text = scripted(middle=[("single", "fish"), ("double", "stone")], passed=[1]).render(None)
    assert text.splitlines()[:3] == [
        "Miyabi, round 1 of 6, start player seat 0: seat 0 takes a tile or passes",
        "Middle: single: fish x1; double: stone x1",
        "Layer-5 bonus tiles left: maple 10, pagoda 9, fish 8, azalea 7, boxwood 6, stone 5",
    ]
    assert "Seat 1: 0 points, passed" in text


def test_the_final_table_shows_each_seats_end_scoring() -> None:
    state = scripted(round_=6, gardens={0: [("double", "fish", 1)], 1: [("single", "fish", 2)]})
    state.apply({0: {"type": "pass"}})
    state.apply({1: {"type": "pass"}})
    lines = state.render(None).splitlines()
    assert lines[0] == "Miyabi, round 6 of 6, start player seat 0: game over"
    assert lines[lines.index("Seat 0: 10 points") + 1] == "  end scoring: fish 10"
    assert lines[lines.index("Seat 1: 5 points") + 1] == "  end scoring: fish 5"


def test_the_observation_shows_heights_tops_and_visible_objects() -> None:
    view = scripted(gardens={0: GARDEN}).observe(0)
    garden = view["gardens"][0]
    assert garden["height"][0] == [2, 2, 0, 0, 0, 0]
    assert garden["top"][1] == [None, None, "pagoda", "green", None, None]
    assert garden["visible_objects"]["maple"] == 2
    assert garden["tiles"][2] == {
        "shape": "double",
        "object": "maple",
        "row": 1,
        "col": 1,
        "rotation": 0,
        "layer": 2,
        "cells": [[1, 1], [1, 2]],
    }


def test_the_observation_shows_a_placed_tile_after_an_earlier_observation() -> None:
    state = scripted(gardens={0: GARDEN}, taken=("single", "fish"))
    assert state.observe(0)["gardens"][0]["top"][2][0] is None
    place(state, 3, 1)
    garden = state.observe(0)["gardens"][0]
    assert (garden["top"][2][0], garden["height"][2][0]) == ("fish", 1)
    assert garden["visible_objects"]["fish"] == 1


def test_the_observations_heights_tops_and_visible_objects_refuse_edits() -> None:
    garden = scripted(gardens={0: GARDEN}).observe(0)["gardens"][0]
    for edit in (
        lambda: garden["height"][0].__setitem__(0, 9),
        lambda: garden["top"].append([]),
        lambda: garden["visible_objects"].update(maple=9),
    ):
        with pytest.raises(TypeError, match="shared by every snapshot"):
            edit()


def test_every_seat_sees_the_same_table_since_nothing_is_hidden() -> None:
    state = scripted(players=3, gardens={1: GARDEN}, middle=[("single", "fish")])
    views = [state.observe(s) for s in (None, 0, 1, 2)]
    assert [v.pop("seat") for v in views] == [None, 0, 1, 2]
    assert all(v == views[0] for v in views)
    assert views[0]["to_move"] == [0] and views[0]["phase"] == "choose"


def test_determinize_rebuilds_the_one_consistent_state() -> None:
    state = scripted(gardens={0: GARDEN, 1: GARDEN[:2]}, taken=("double", "fish"))
    alt = GAME.determinize(json.loads(json.dumps(state.observe(1))), 1, random.Random(0))
    assert alt.to_json() == state.to_json()


def test_a_snapshot_round_trips_through_json_mid_round() -> None:
    state = GAME.new_game(3, {"bigMeadow": True})
    rng = random.Random(2)
    for _ in range(30):
        seat = state.to_move()[0]
        if seat == CHANCE:
            state.apply({CHANCE: state.chance_outcomes()[0][0]})
        else:
            state.apply({seat: rng.choice(state.legal_actions(seat))})
    back = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert back.to_json() == state.to_json()
    assert back.legal_actions(state.current) == state.legal_actions(state.current)


def test_actions_are_narrated_in_one_sentence() -> None:
    state = scripted(gardens={0: [("single", "maple", 1)] * 4}, middle=[("single", "maple")])
    assert state.describe(CHANCE, {"type": "deal", "shape": "corner", "object": "fish"}) == (
        "a corner fish tile is laid out in the middle"
    )
    take = {"type": "take", "shape": "single", "object": "maple"}
    assert state.describe(0, take) == "seat 0 takes a single maple tile from the middle"
    assert state.describe(0, {"type": "pass"}) == "seat 0 passes for the rest of round 1"
    state.apply({0: take})
    assert state.describe(0, {"type": "place", "row": 1, "col": 1, "rotation": 0}) == (
        "seat 0 places the single maple tile at row 1, column 1 (rotation 0) on layer 5"
        " for 5 points and the maple bonus tile (10)"
    )


def test_info_names_the_game_and_its_nature() -> None:
    info = GAME.info
    assert (info.name, info.version, info.min_players, info.max_players) == (
        "miyabi",
        "miyabi@2",
        2,
        4,
    )
    assert info.chance and not info.hidden_information and not info.simultaneous


def test_an_unknown_option_is_refused_with_the_list_of_options() -> None:
    with pytest.raises(OptionError, match="has no option 'bonus'"):
        GAME.new_game(2, {"bonus": 3})


def test_an_out_of_range_option_is_refused() -> None:
    with pytest.raises(OptionError, match="must be at least 0"):
        GAME.new_game(2, {"majorityPoints.first": -1})
    with pytest.raises(OptionError, match="is one of exact, atLeast"):
        GAME.new_game(2, {"bonusLayerMode": "above"})


def test_miyabi_is_played_by_two_to_four() -> None:
    with pytest.raises(OptionError, match="2 to 4 players, not 5"):
        GAME.new_game(5)


def test_every_observation_starts_with_the_shared_envelope() -> None:
    state = scripted(players=3, middle=[("single", "fish")], current=1)
    for seat in (None, 0, 1, 2):
        view = state.observe(seat)
        assert list(view)[:5] == ["game", "seat", "players", "phase", "to_move"]
        assert (view["game"], view["seat"], view["players"]) == ("miyabi@2", seat, 3)
        assert (view["phase"], view["to_move"]) == ("choose", [1])


def keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return {k for k in value if k != "options"} | {
            k for name, sub in value.items() if name != "options" for k in keys(sub)
        }
    if isinstance(value, list):
        return {k for sub in value for k in keys(sub)}
    return set()


def test_observation_keys_are_snake_case_even_for_the_variant_end_scoring() -> None:
    state = scripted(
        round_=6, options={"colorfulGarden": True, "bigMeadow": True}, gardens={0: GARDEN}
    )
    state.apply({0: {"type": "pass"}})
    state.apply({1: {"type": "pass"}})
    view = state.observe(None)
    assert {"colorful_garden", "big_meadow", "end_scoring", "visible_objects"} <= keys(view)
    assert all(k == k.lower() for k in keys(view))
