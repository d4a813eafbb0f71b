"""Meditate: slot tiles, slide and refill, card effects, capacity (bonsai.md §2, §3, §7.1)."""

from __future__ import annotations

from niwa.engine import CHANCE
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import CULTIVATE, END, cells, meditate, place, play, reveal, supply, table

BOARD = ("tool", "growth:leaf", "master:any", "helper:leaf")


def tiles(state: BonsaiState, seat: int = 0) -> dict[str, int]:
    sup = state.seats[seat].supply
    return {t: n for t, n in zip(("wood", "leaf", "flower", "fruit"), sup, strict=True) if n}


def test_slot_1_gives_no_tile() -> None:
    s = table(board=BOARD)
    supply(s, 0)
    play(s, meditate(1))
    assert tiles(s) == {}


def test_slot_2_gives_wood_or_leaf_at_the_players_choice() -> None:
    s = table(board=BOARD)
    slot2 = [a for a in s.legal_actions(0) if a.get("slot") == 2]
    assert slot2 == [meditate(2, "wood"), meditate(2, "leaf")]
    supply(s, 0)
    play(s, meditate(2, "leaf"))
    assert tiles(s) == {"leaf": 1}


def test_slot_3_gives_wood_and_flower() -> None:
    s = table(board=BOARD)
    supply(s, 0)
    play(s, meditate(3))
    assert tiles(s) == {"wood": 1, "flower": 1}


def test_slot_4_gives_leaf_and_fruit() -> None:
    s = table(board=("growth:wood", "growth:flower", "growth:fruit", "parchment:leaf"))
    supply(s, 0)
    play(s, meditate(4))
    assert tiles(s) == {"leaf": 1, "fruit": 1}


def test_the_row_slides_right_and_a_card_is_revealed_next_to_the_deck() -> None:
    s = table(board=BOARD)
    play(s, meditate(3))
    assert s.board == [None, "tool", "growth:leaf", "helper:leaf"]
    assert s.to_move() == (CHANCE,)
    reveal(s, "parchment:fruit")
    assert s.board == ["parchment:fruit", "tool", "growth:leaf", "helper:leaf"]


def test_an_empty_deck_leaves_the_gap_empty() -> None:
    s = table(board=BOARD)
    s.pool = {}
    play(s, meditate(2, "wood"))
    assert s.board == [None, "tool", "master:any", "helper:leaf"]
    assert s.seats[0].cards == ["growth:leaf"] and s.current == 1


def test_a_growth_card_adds_a_slot_to_every_cultivate() -> None:
    s = table(board=BOARD)
    play(s, meditate(2, "wood"))
    reveal(s, "tool")
    play(s, CULTIVATE)  # seat 1
    play(s, END)
    play(s, CULTIVATE)  # seat 0 again
    assert s.allowance == [1, 2, 0, 0, 1]


def test_a_tool_card_raises_capacity_by_two() -> None:
    s = table(board=BOARD)
    play(s, meditate(1))
    reveal(s, "tool")
    assert s.seats[0].capacity() == 7


def test_a_master_wild_tile_is_any_type_the_player_picks() -> None:
    s = table(board=BOARD)
    supply(s, 0)
    play(s, meditate(3))
    reveal(s, "tool")
    assert s.phase == "master"
    assert [a["tile"] for a in s.legal_actions(0)] == ["wood", "leaf", "flower", "fruit"]
    play(s, {"type": "choose_tile", "tile": "fruit"})
    assert tiles(s) == {"wood": 1, "flower": 1, "fruit": 1}
    assert s.current == 1


def test_a_master_gives_its_tiles_on_top_of_the_slot_tiles() -> None:
    s = table(
        players=3, board=("growth:wood", "growth:flower", "growth:fruit", "master:wood+leaf+fruit")
    )
    supply(s, 0)
    play(s, meditate(4))
    reveal(s, "tool")
    assert tiles(s) == {"wood": 1, "leaf": 2, "fruit": 2}
    assert s.seats[0].cards == ["master:wood+leaf+fruit"]


def test_a_helper_places_a_wild_tile_and_one_of_its_type_from_the_supply() -> None:
    s = table(board=BOARD)
    supply(s, 0, wood=1)
    play(s, meditate(4))  # leaf and fruit come with slot 4
    reveal(s, "tool")
    assert s.phase == "helper"
    assert s.allowance == [0, 1, 0, 0, 1]  # leaf + wild, no Seishi slots
    play(s, place("leaf", 1, 1), place("wood", -1, 1))
    assert s.legal_actions(0) == [END]
    play(s, END)
    assert s.seats[0].tree == cells((1, 1, "leaf"), (-1, 1, "wood"))


def test_a_helper_wild_tile_may_match_the_shown_type() -> None:
    s = table(board=("growth:wood", "growth:flower", "growth:fruit", "helper:fruit"))
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"), (3, 1, "leaf"), (4, 2, "leaf"))
    supply(s, 0, fruit=1)
    play(s, meditate(4))
    reveal(s, "tool")
    play(s, place("fruit", 0, 2), place("fruit", 5, 1))
    assert s.seats[0].supply[3] == 0


def test_parchments_go_to_the_face_down_pile_without_effect() -> None:
    s = table(board=("parchment:leaf", "growth:wood", "growth:flower", "growth:fruit"))
    supply(s, 0)
    play(s, meditate(1))
    reveal(s, "tool")
    assert s.seats[0].cards == ["parchment:leaf"] and s.current == 1


def test_the_refill_comes_before_the_end_of_turn_discard() -> None:
    s = table(board=BOARD)
    supply(s, 0, wood=5)
    play(s, meditate(3))  # + wood + flower: 7 tiles, capacity 5
    assert s.phase == "reveal"
    reveal(s, "tool")
    play(s, {"type": "choose_tile", "tile": "leaf"})
    assert s.phase == "discard"
    assert s.legal_actions(0) == [
        {"type": "discard", "tile": t} for t in ("wood", "leaf", "flower")
    ]
    play(s, {"type": "discard", "tile": "wood"}, {"type": "discard", "tile": "wood"})
    assert s.phase == "discard"
    play(s, {"type": "discard", "tile": "wood"})
    assert sum(s.seats[0].supply) == 5 and s.current == 1


def test_the_supply_may_exceed_capacity_within_the_turn() -> None:
    s = table(board=BOARD)
    supply(s, 0, wood=4, leaf=1)
    play(s, meditate(4))
    reveal(s, "tool")
    assert s.phase == "helper" and sum(s.seats[0].supply) == 7
    play(s, place("leaf", 1, 1), place("leaf", -1, 1), END)
    assert s.current == 1  # 5 left: no discard


def test_a_tool_taken_this_turn_counts_at_the_end_of_this_turn() -> None:
    s = table(board=("growth:wood", "growth:flower", "growth:fruit", "tool"))
    supply(s, 0, wood=5)
    play(s, meditate(4))  # + leaf + fruit: 7 tiles
    reveal(s, "parchment:leaf")
    assert s.seats[0].capacity() == 7 and s.current == 1  # no discard


def test_growth_cards_of_one_type_stack() -> None:
    s = table(board=BOARD)
    s.seats[0].cards = ["growth:leaf", "growth:leaf", "growth:fruit"]
    play(s, CULTIVATE)
    assert s.allowance == [1, 3, 0, 1, 1]


def test_a_helper_uses_neither_the_seishi_nor_the_growth_slots() -> None:
    s = table(board=BOARD)
    s.seats[0].cards = ["growth:wood", "growth:leaf"]
    supply(s, 0, wood=3, leaf=3)
    play(s, meditate(4))
    reveal(s, "tool")
    assert s.phase == "helper" and s.allowance == [0, 1, 0, 0, 1]


def test_a_master_card_goes_to_the_pile_after_giving_its_tiles() -> None:
    s = table(board=("growth:wood", "growth:flower", "master:leaf+leaf", "tool"))
    supply(s, 0)
    play(s, meditate(3))  # + wood + flower
    reveal(s, "tool")
    assert tiles(s) == {"wood": 1, "leaf": 2, "flower": 1}
    assert s.seats[0].cards == ["master:leaf+leaf"] and s.current == 1
