"""Rounds: the layout by player count, chance, turn order, the round end, the start
player's rotation and the number of rounds (miyabi.md §2.2, §5.1, §7)."""

from __future__ import annotations

import random

import pytest

from niwa.engine import CHANCE, IllegalAction, sample_chance
from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.rules import NKINDS, SHAPES, TILE_SET, shape_of
from niwa.engine.rulesets.miyabi.state import MiyabiState
from tests.games.miyabi.scripted import place, refusal, scripted


def deal_round(state: MiyabiState, rng: random.Random) -> None:
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: sample_chance(state, rng)})


def shape_counts(counts: list[int]) -> list[int]:
    out = [0] * len(SHAPES)
    for k in range(NKINDS):
        out[shape_of(k)] += counts[k]
    return out


@pytest.mark.parametrize(
    ("players", "layout"), [(2, [4, 4, 2, 2]), (3, [6, 6, 3, 3]), (4, [8, 8, 4, 4])]
)
def test_each_round_lays_out_2p_singles_2p_doubles_p_straights_p_corners(
    players: int, layout: list[int]
) -> None:
    state = GAME.new_game(players)
    deal_round(state, random.Random(players))
    assert shape_counts(state.display) == layout


@pytest.mark.parametrize(("players", "rounds"), [(2, 6), (3, 5), (4, 4)])
def test_the_number_of_rounds_depends_on_the_player_count(players: int, rounds: int) -> None:
    assert GAME.new_game(players).rules.rounds == rounds


def test_the_number_of_rounds_is_an_option() -> None:
    assert GAME.new_game(3, {"roundsByPlayers.3": 2}).rules.rounds == 2


def test_each_draw_is_weighted_by_the_tiles_of_that_shape_left_in_the_box() -> None:
    outcomes = GAME.new_game(2).chance_outcomes()
    assert [(a["shape"], a["object"], p) for a, p in outcomes] == [
        ("single", "maple", 5 / 32),
        ("single", "pagoda", 5 / 32),
        ("single", "fish", 6 / 32),
        ("single", "azalea", 6 / 32),
        ("single", "boxwood", 5 / 32),
        ("single", "stone", 5 / 32),
    ]


def test_a_drawn_tile_goes_face_up_from_the_box_to_the_middle() -> None:
    state = GAME.new_game(2)
    state.apply({CHANCE: {"type": "deal", "shape": "single", "object": "fish"}})
    assert state.observe(None)["display"]["single"] == {"fish": 1}
    assert state.observe(None)["supply"]["single"]["fish"] == 5


def test_a_draw_of_the_wrong_shape_is_refused() -> None:
    state = GAME.new_game(2)
    with pytest.raises(IllegalAction) as e:
        state.apply({CHANCE: {"type": "deal", "shape": "corner", "object": "fish"}})
    assert e.value.rule == "miyabi.md §2.2"


def test_the_start_player_takes_the_first_turn() -> None:
    state = GAME.new_game(3)
    deal_round(state, random.Random(0))
    assert state.to_move() == (0,)


def test_turns_go_clockwise_and_skip_players_out_of_the_round() -> None:
    state = scripted(players=3, middle=[("single", "fish")] * 3, passed=[1])
    state.apply({0: {"type": "take", "shape": "single", "object": "fish"}})
    place(state, 3, 1)
    assert state.to_move() == (2,)


def test_a_player_whose_six_lantern_fields_are_filled_is_out_of_the_round() -> None:
    state = scripted(
        players=3, middle=[("single", "fish")] * 3, lanterns={0: [1, 2, 3, 4, 5]}, current=0
    )
    state.apply({0: {"type": "take", "shape": "single", "object": "fish"}})
    place(state, 3, 6)
    assert state.gardens[0].done()
    state.apply({1: {"type": "pass"}})
    assert state.to_move() == (2,)
    state.apply({2: {"type": "take", "shape": "single", "object": "fish"}})
    place(state, 3, 1)
    assert state.to_move() == (2,)  # seats 0 and 1 are out: seat 2 goes on alone


def test_the_round_ends_when_everyone_has_passed_or_filled_their_lanterns() -> None:
    state = scripted(middle=[("single", "fish"), ("double", "stone")], lanterns={1: range(1, 7)})
    state.apply({0: {"type": "pass"}})
    assert state.round == 2 and state.to_move() == (CHANCE,)
    assert all(not any(g.lanterns) and not g.passed for g in state.gardens)


def test_unused_tiles_leave_the_game_at_the_round_end() -> None:
    state = scripted(middle=[("single", "fish"), ("double", "stone")], passed=[1])
    state.apply({0: {"type": "pass"}})
    view = state.observe(None)
    assert view["removed"]["single"] == {"fish": 1} and view["removed"]["double"] == {"stone": 1}
    assert sum(state.display) == 0


def test_the_bonsai_passes_clockwise_each_round() -> None:
    state = GAME.new_game(3)
    rng = random.Random(7)
    starts = []
    while not state.is_over():
        deal_round(state, rng)
        starts.append(state.start)
        round_ = state.round
        while state.round == round_ and not state.is_over():
            state.apply({state.current: {"type": "pass"}})
    assert starts == [0, 1, 2, 0, 1]


def test_a_player_places_at_most_six_tiles_a_round() -> None:
    state = GAME.new_game(2, {"roundsByPlayers.2": 1})
    rng = random.Random(3)
    deal_round(state, rng)
    while not state.is_over():
        actions = state.legal_actions(state.current)
        takes = [a for a in actions if a["type"] != "pass"]
        state.apply({state.current: rng.choice(takes or actions)})
    assert all(len(g.tiles) <= 6 for g in state.gardens)


def test_a_four_player_game_uses_every_tile_in_the_box() -> None:
    state = GAME.new_game(4)
    rng = random.Random(11)
    dealt = [0] * NKINDS
    while not state.is_over():
        before = state.display[:]
        deal_round(state, rng)
        dealt = [d + a - b for d, a, b in zip(dealt, state.display, before, strict=True)]
        while state.to_move() not in ((CHANCE,), ()):
            state.apply({state.current: {"type": "pass"}})
    assert dealt == list(TILE_SET) and sum(state.supply) == 0


def test_the_layout_stops_when_a_shape_runs_out_in_the_box() -> None:
    state = GAME.new_game(2, {"tilesPerRound.corner": 4, "roundsByPlayers.2": 3})
    rng = random.Random(5)
    for _ in range(2):
        deal_round(state, rng)
        round_ = state.round
        while state.round == round_:
            state.apply({state.current: {"type": "pass"}})
    deal_round(state, rng)  # 16 corners in the box: 8 + 8 laid out already
    assert shape_counts(state.display)[SHAPES.index("corner")] == 0
    assert state.to_move() == (0,)


def test_no_move_is_accepted_once_the_game_is_over() -> None:
    state = scripted(round_=6, passed=[1])
    state.apply({0: {"type": "pass"}})
    with pytest.raises(IllegalAction) as e:
        state.apply({0: {"type": "pass"}})
    assert e.value.rule == "miyabi.md §5.1"


def test_a_move_for_a_seat_not_to_move_is_refused() -> None:
    state = scripted(middle=[("single", "fish")])
    with pytest.raises(IllegalAction):
        state.apply({1: {"type": "pass"}})
    assert refusal(state, {"type": "place", "row": 3, "col": 1, "rotation": 0}).rule == (
        "miyabi.md §5.2"
    )


def test_the_new_start_player_takes_the_first_turn_of_the_next_round() -> None:
    state = scripted(middle=[("single", "fish")], passed=[1])
    state.apply({0: {"type": "pass"}})
    deal_round(state, random.Random(1))
    assert (state.round, state.start, state.to_move()) == (2, 1, (1,))


def test_with_an_empty_middle_the_only_action_is_to_pass() -> None:
    state = scripted(options={"voluntaryPass": False})
    assert state.legal_actions(0) == [{"type": "pass"}]
