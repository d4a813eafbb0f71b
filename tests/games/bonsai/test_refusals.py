"""Moves the engine refuses, each naming its rule and leaving the state unchanged."""

from __future__ import annotations

import pytest

from niwa.engine import CHANCE, IllegalAction
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import CULTIVATE, meditate, place, play, table


def refused(state: BonsaiState, joint: dict[int, object], rule: str) -> None:
    before = state.to_json()
    with pytest.raises(IllegalAction) as e:
        state.apply(joint)
    assert e.value.rule == rule
    assert state.to_json() == before


def test_a_seat_that_is_not_to_move_is_refused() -> None:
    refused(table(), {1: CULTIVATE}, "bonsai.md §7.1")


def test_slot_2_without_the_tile_choice_is_refused() -> None:
    refused(table(), {0: meditate(2)}, "bonsai.md §7.1")


def test_a_card_the_deck_no_longer_holds_cannot_be_revealed() -> None:
    s = table(players=2)
    del s.pool["tool"]
    play(s, meditate(1))
    refused(s, {CHANCE: {"type": "reveal", "card": "tool"}}, "bonsai.md §3")


def test_a_goal_not_pending_cannot_be_claimed() -> None:
    refused(table(), {0: {"type": "claim", "goal": "brown-low"}}, "bonsai.md §7.1")


def test_no_move_is_taken_once_the_game_is_over() -> None:
    s = table()
    s.phase = "over"
    refused(s, {0: CULTIVATE}, "bonsai.md §7.2")


def test_a_placement_beyond_the_allowance_names_the_allowance_rule() -> None:
    s = table()
    s.seats[0].supply = [0, 4, 0, 0]
    play(s, CULTIVATE, place("leaf", 1, 1), place("leaf", -1, 1))
    refused(s, {0: place("leaf", 3, 1)}, "bonsai.md §2.4")


def test_a_master_tile_of_no_known_type_is_refused() -> None:
    s = table(board=("tool", "growth:leaf", "master:any", "helper:leaf"))
    play(s, meditate(3))
    s.apply({CHANCE: {"type": "reveal", "card": "tool"}})
    refused(s, {0: {"type": "choose_tile", "tile": "gold"}}, "bonsai.md §2.3")


def test_a_tile_not_in_the_supply_is_refused_before_anything_moves() -> None:
    s = table()
    s.seats[0].supply = [0, 0, 0, 0]
    play(s, CULTIVATE)
    refused(s, {0: place("wood", 1, 1)}, "bonsai.md §7.1")
