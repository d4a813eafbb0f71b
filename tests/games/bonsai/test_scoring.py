"""Final scoring (bonsai.md §5), Parchments (§2.2) and the tie-break."""

from __future__ import annotations

from niwa.engine.rulesets.bonsai.rules import FLOWER, key
from niwa.engine.rulesets.bonsai.scoring import breakdown, parchment_points, tree_points
from niwa.engine.rulesets.bonsai.tree import free_sides

from .table import cells, table, tree

# The rulebook's final-score example (RB, End of the game; DIZED): 13 leaves, five
# flowers worth 3 + 3 + 3 + 5 + 5, two fruit, ten wood tiles with the bud.
EXAMPLE = """
   9 |           Wo  Le
   8 |     Fl  Le  Wo
   7 |           Wo  Le
   6 |         Le  Wo  Le  Fl
   5 |       Fl  Wo  Le
   4 |         Le  Wo
   3 |       Le  Wo  Le  Fr
   2 |     Fr  Le  Wo  Le  Fl
   1 |       Le  Wo  Le  Fl
   0 | ~~  ~~  Wo  ~~  ~~  ~~
  -1 |   ~~  ~~  ~~  ~~  ~~
  -2 |     ~~  ~~  ~~  ~~
"""


def test_final_score_example_of_the_rulebook_is_100() -> None:
    t = tree(EXAMPLE)
    assert tree_points(t) == {"leaf": 39, "flower": 19, "fruit": 14}
    parts = breakdown([t], ["parchment:wood", "parchment:leaf"], ["brown-low"])
    assert parts["parchments"] == 10 + 13
    assert parts["goals"] == 5
    assert parts["total"] == 100


def test_a_flower_scores_one_per_side_touching_no_tile() -> None:
    t = cells((1, 1, "leaf"), (2, 2, "flower"))
    assert free_sides(t, key(2, 2)) == 5
    assert tree_points(t)["flower"] == 5


def test_flower_sides_facing_the_pot_are_free() -> None:
    # (5, 1) touches the pot cells (4, 0) and (6, 0) and one leaf.
    t = cells((1, 1, "wood"), (3, 1, "leaf"), (5, 1, "flower"))
    assert free_sides(t, key(5, 1)) == 5


def test_a_flower_side_touching_the_bud_is_not_free() -> None:
    t = cells((1, 1, "leaf"), (-1, 1, "flower"))
    assert free_sides(t, key(-1, 1)) == 4
    assert t[key(-1, 1)] == FLOWER


def test_wood_scores_nothing_and_leaf_and_fruit_score_3_and_7() -> None:
    t = cells((1, 1, "wood"), (-1, 1, "leaf"), (3, 1, "leaf"), (2, 2, "fruit"))
    assert breakdown([t], [], [])["total"] == 3 + 3 + 7


def test_each_parchment_counts_its_own_thing() -> None:
    t = cells((1, 1, "leaf"), (-1, 1, "leaf"), (0, 2, "fruit"), (2, 2, "flower"))
    owned = ["growth:leaf", "growth:wood", "helper:leaf", "master:any", "master:any", "tool"]
    points = {
        "parchment:wood": 1,  # the bud
        "parchment:leaf": 2,
        "parchment:flower": 2,
        "parchment:fruit": 2,
        "parchment:growth": 4,
        "parchment:helper": 2,
        "parchment:master": 4,
    }
    for kind, expected in points.items():
        assert parchment_points(kind, [t], owned) == expected, kind


def test_tiles_left_in_the_supply_score_nothing() -> None:
    s = table()
    s.seats[0].supply = [3, 3, 3, 3]
    assert s.scores()[0]["total"] == 0


def test_a_tie_goes_to_the_player_seated_latest() -> None:
    s = table(players=3)
    for seat in s.seats:
        seat.tree = cells((1, 1, "leaf"))
    assert s.result().places == (2, 1, 0)


def test_higher_score_places_first() -> None:
    s = table(players=2)
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"))
    s.seats[1].tree = cells((1, 1, "leaf"))
    assert s.result().scores == (6.0, 3.0)
    assert s.result().places == (0, 1)


def test_a_full_game_score_adds_tiles_parchments_and_goals() -> None:
    s = table(players=2)
    s.seats[0].tree = tree(EXAMPLE)
    s.seats[0].cards = ["parchment:wood", "parchment:leaf", "growth:leaf", "tool"]
    s.seats[0].claimed = ["brown-low"]
    s.seats[1].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"), (0, 2, "fruit"), (2, 2, "flower"))
    s.seats[1].cards = ["parchment:growth", "growth:wood", "growth:fruit"]
    s.seats[1].claimed = ["green-low"]
    # seat 1: leaves 6, fruit 7, flower (2, 2) touches (1, 1) and (0, 2): 4, growth 2 x 2, goal 6
    assert s.scores()[1] == {
        "leaf": 6, "flower": 4, "fruit": 7, "parchments": 4, "goals": 6, "total": 27
    }  # fmt: skip
    assert s.result().scores == (100.0, 27.0) and s.result().places == (0, 1)
