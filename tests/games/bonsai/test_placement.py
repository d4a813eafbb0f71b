"""Placement rules (bonsai.md §6.6), the Cultivate allowance (§2.4) and the can't-grow rule."""

from __future__ import annotations

import pytest

from niwa.engine import IllegalAction
from niwa.engine.rulesets.bonsai.rules import (
    FLOWER,
    FRUIT,
    LEAF,
    POT,
    POT_FLIPPED,
    WOOD,
    coords,
    key,
)
from niwa.engine.rulesets.bonsai.tree import can_place, is_stuck, legal_cells, removable

from .table import CULTIVATE, END, cells, place, play, supply, table, tree


def ok(t: dict[int, int], tile: int, u: int, v: int) -> bool:
    return can_place(t, POT, tile, key(u, v))


def ok_on(pot: frozenset[int], t: dict[int, int], u: int, v: int) -> bool:
    """Whether wood may go on (u, v) beside the pot ``pot``."""
    return can_place(t, pot, WOOD, key(u, v))


def test_wood_grows_next_to_wood() -> None:
    assert ok(cells(), WOOD, 1, 1)
    assert ok(cells((1, 1, "wood")), WOOD, 2, 2)


def test_wood_does_not_grow_next_to_a_leaf_only() -> None:
    assert not ok(cells((1, 1, "leaf")), WOOD, 2, 2)


def test_leaf_needs_a_wood_neighbour() -> None:
    assert ok(cells(), LEAF, -1, 1)
    assert not ok(cells((1, 1, "leaf")), LEAF, 2, 2)


def test_flower_needs_a_leaf_neighbour() -> None:
    t = cells((1, 1, "leaf"), (-1, 1, "wood"))
    assert ok(t, FLOWER, 2, 2)
    assert not ok(t, FLOWER, -2, 2)  # next to wood only


def test_fruit_sits_between_two_touching_leaves() -> None:
    # (0, 2) has (-1, 1) and (1, 1) on consecutive sides.
    assert ok(cells((1, 1, "leaf"), (-1, 1, "leaf")), FRUIT, 0, 2)


def test_fruit_next_to_one_leaf_is_refused() -> None:
    assert not ok(cells((1, 1, "leaf")), FRUIT, 0, 2)


def test_fruit_between_two_leaves_on_opposite_sides_is_refused() -> None:
    t = cells((1, 1, "wood"), (-1, 1, "wood"), (2, 2, "leaf"), (-2, 2, "leaf"))
    assert not ok(t, FRUIT, 0, 2)


def test_fruit_never_touches_another_fruit() -> None:
    t = cells((1, 1, "leaf"), (-1, 1, "leaf"), (1, 3, "fruit"))
    assert not ok(t, FRUIT, 0, 2)


def test_pot_cells_never_take_a_tile() -> None:
    # The bud's lower and side neighbours are pot cells (bonsai.md §6.3).
    for u, v in [(2, 0), (-2, 0), (1, -1), (-1, -1)]:
        assert not ok(cells(), WOOD, u, v)
    assert sorted(legal_cells(cells(), POT, WOOD)) == sorted([key(1, 1), key(-1, 1)])


def test_the_feet_of_the_pot_are_free_cells() -> None:
    t = cells((-3, 1, "wood"), (-5, 1, "wood"), (-5, -1, "wood"))
    assert ok(t, WOOD, -4, -2)
    assert ok(cells((7, 1, "wood"), (7, -1, "wood")), WOOD, 6, -2)


def test_an_occupied_cell_is_refused() -> None:
    assert not ok(cells((1, 1, "wood")), WOOD, 1, 1)


def test_cultivate_example_of_the_rulebook() -> None:
    """Bryce: Seishi + Growth leaf, flower, fruit; places 1 wood, 2 leaves, 1 flower and
    keeps the wild slot unused (RB, Cultivate)."""
    s = table()
    s.seats[0].cards = ["growth:leaf", "growth:flower", "growth:fruit"]
    supply(s, 0, wood=1, leaf=2, flower=1)
    play(s, CULTIVATE)
    assert s.allowance == [1, 2, 1, 1, 1]  # wood, leaf, flower, fruit, any
    play(s, place("wood", 1, 1), place("leaf", -1, 1), place("leaf", 3, 1))
    play(s, place("flower", 2, 2))
    assert s.allowance == [0, 0, 0, 1, 1]
    assert s.legal_actions(0) == [END]
    play(s, END)
    assert s.seats[0].tree == cells(
        (1, 1, "wood"), (-1, 1, "leaf"), (3, 1, "leaf"), (2, 2, "flower")
    )
    assert s.current == 1 and s.phase == "choose"


def test_a_tile_uses_its_own_slot_before_the_wild_slot() -> None:
    s = table()
    supply(s, 0, leaf=3)
    play(s, CULTIVATE, place("leaf", 1, 1), place("leaf", -1, 1))
    assert s.allowance == [1, 0, 0, 0, 0]  # the Seishi's wood slot is left
    with pytest.raises(IllegalAction, match="no placement left"):
        play(s, place("leaf", 3, 1))


def test_tiles_placed_earlier_in_the_action_count() -> None:
    s = table()
    supply(s, 0, wood=1, leaf=1)
    play(s, CULTIVATE, place("wood", 1, 1), place("leaf", 2, 2))
    assert s.seats[0].tree[key(2, 2)] == LEAF


def test_an_illegal_placement_is_refused_and_changes_nothing() -> None:
    s = table()
    supply(s, 0, flower=1)
    play(s, CULTIVATE)
    before = s.to_json()
    with pytest.raises(IllegalAction) as e:
        play(s, place("flower", 1, 1))
    assert e.value.rule == "bonsai.md §6.6"
    assert s.to_json() == before


def test_a_tile_not_in_the_supply_cannot_be_placed() -> None:
    s = table()
    supply(s, 0, wood=1)
    play(s, CULTIVATE)
    with pytest.raises(IllegalAction, match="no leaf tile"):
        play(s, place("leaf", 1, 1))


def test_cultivating_may_place_nothing() -> None:
    s = table()
    play(s, CULTIVATE, END)
    assert s.current == 1


def test_placements_are_listed_for_every_tile_in_supply_with_a_slot() -> None:
    s = table()
    supply(s, 0, wood=1, fruit=1)
    play(s, CULTIVATE)
    assert s.legal_actions(0) == [place("wood", -1, 1), place("wood", 1, 1), END]


def test_a_tree_with_no_room_for_wood_is_stuck() -> None:
    stuck = tree(
        """
  1 |       Le  Le
  0 | ~~  ~~  Wo  ~~  ~~  ~~
"""
    )
    assert is_stuck(stuck, POT)
    assert removable(stuck) == sorted([key(-1, 1), key(1, 1)])


def test_a_stuck_tree_may_shed_one_tile_at_the_start_of_the_turn() -> None:
    s = table()
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"), (0, 2, "flower"))
    acts = s.legal_actions(0)
    assert acts[:2] == [{"type": "remove", "cell": [-1, 1]}, {"type": "remove", "cell": [1, 1]}]
    play(s, {"type": "remove", "cell": [1, 1]})
    assert key(1, 1) not in s.seats[0].tree
    assert s.phase == "choose" and s.current == 0
    assert not any(a["type"] == "remove" for a in s.legal_actions(0))


def test_a_growing_tree_offers_no_removal() -> None:
    s = table()
    s.seats[0].tree = cells((1, 1, "leaf"))
    assert not any(a["type"] == "remove" for a in s.legal_actions(0))


def test_the_pot_covers_exactly_the_cells_of_the_rules_data() -> None:
    rows = {0: [-4, -2, 2, 4, 6], -1: [-3, -1, 1, 3, 5], -2: [-2, 0, 2, 4]}
    assert {key(u, v) for v, us in rows.items() for u in us} == POT


def test_a_flipped_pot_mirrors_every_pot_cell() -> None:
    assert {key(-u, v) for u, v in map(coords, POT)} == POT_FLIPPED
    assert ok_on(POT_FLIPPED, cells((1, 1, "wood"), (3, 1, "wood"), (5, 1, "wood")), 6, 0)
    assert not ok_on(POT_FLIPPED, cells((-3, 1, "wood"), (-5, 1, "wood")), -6, 0)


def test_a_stuck_tree_never_sheds_wood() -> None:
    stuck = cells((1, 1, "wood"), (-1, 1, "leaf"), (3, 1, "leaf"), (0, 2, "leaf"), (2, 2, "leaf"))
    assert is_stuck(stuck, POT)
    assert removable(stuck) == sorted(key(u, v) for u, v in [(-1, 1), (3, 1), (0, 2), (2, 2)])


def test_shedding_a_tile_is_optional() -> None:
    s = table()
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"))
    play(s, CULTIVATE, END)
    assert s.seats[0].tree == cells((1, 1, "leaf"), (-1, 1, "leaf")) and s.current == 1


def test_fruit_between_two_touching_leaves_on_any_two_consecutive_sides() -> None:
    # Around (0, 2) in cyclic order: (2,2) (1,3) (-1,3) (-2,2) (-1,1) (1,1); each
    # consecutive pair of leaves (wrapping from the last side to the first) holds a fruit.
    ring = [(2, 2), (1, 3), (-1, 3), (-2, 2), (-1, 1), (1, 1)]
    for i in range(6):
        a, b = ring[i], ring[(i + 1) % 6]
        assert ok(cells((*a, "leaf"), (*b, "leaf")), FRUIT, 0, 2), (a, b)
