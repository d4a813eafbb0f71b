"""The incremental tree measures (growth.py) agree with the from-scratch ones (tree.py)."""

from __future__ import annotations

import pytest

from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.growth import growth_of
from niwa.engine.rulesets.bonsai.rules import FLOWER, FRUIT, LEAF, POT, WOOD, key
from niwa.engine.rulesets.bonsai.seat import Seat
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.rulesets.bonsai.tree import (
    count,
    flowers_one_side,
    is_stuck,
    kengai_levels,
    largest_leaf_group,
    legal_cells,
)
from niwa.engine.testing.checks import every_state

from .table import cells


def _agrees(seat: Seat) -> None:
    g = seat.growth()
    tree, pot, flipped = seat.tree, seat.pot, seat.flipped
    for tile in (WOOD, LEAF, FLOWER, FRUIT):
        assert g.legal_cells(tile) == legal_cells(tree, pot, tile)
    assert g.can_grow_wood() == (not is_stuck(tree, pot))
    assert g.measure("wood") == count(tree, WOOD)
    assert g.measure("fruit") == count(tree, FRUIT)
    assert g.measure("leafGroup") == largest_leaf_group(tree)
    assert g.measure("flowersOneSide") == flowers_one_side(tree, flipped)
    assert g.kengai() == kengai_levels(tree, flipped)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_kept_measures_equal_a_rescan_after_every_move_of_random_games(players: int) -> None:
    for seed in range(3):
        for s in every_state(GAME, players, seed, {"allowPotFlip": True}):
            assert isinstance(s, BonsaiState)
            for me in s.seats:
                _agrees(me)


def test_leaf_groups_merge_when_a_leaf_joins_two_of_them() -> None:
    tree = cells((1, 1, "leaf"), (-1, 1, "wood"), (-2, 2, "leaf"))
    g = growth_of(tree, POT, False)
    assert g.measure("leafGroup") == 1
    tree[key(0, 2)] = LEAF
    g.add(key(0, 2), LEAF)
    assert g.measure("leafGroup") == 3 == largest_leaf_group(tree)


def test_a_tree_replaced_behind_the_seats_back_is_measured_afresh() -> None:
    s = GAME.new_game(2, {})
    assert isinstance(s, BonsaiState)
    me = s.seats[0]
    assert me.growth().measure("leafGroup") == 0
    me.tree.update(cells((1, 1, "leaf"), (3, 1, "leaf")))
    assert me.growth().measure("leafGroup") == 2


def test_a_copied_seat_grows_apart_from_the_original() -> None:
    s = GAME.new_game(2, {})
    assert isinstance(s, BonsaiState)
    me = s.seats[0]
    me.growth()
    twin = me.copy()
    twin.place(key(1, 1), LEAF)
    assert twin.growth().measure("leafGroup") == 1
    assert me.growth().measure("leafGroup") == 0 and key(1, 1) in me.growth().wood_adj
