"""The fruit rule (bonsai.md §6.6) for every way the six sides of a cell can be filled."""

from __future__ import annotations

from itertools import product

from niwa.engine.rulesets.bonsai.rules import FLOWER, FRUIT, LEAF, NEIGHBOURS, WOOD, key
from niwa.engine.rulesets.bonsai.tree import Tree, fruit_fits


def _rule(sides: tuple[int | None, ...]) -> bool:
    """The rule as written: no fruit beside it, two leaves on sides that touch."""
    touching = zip(sides, sides[1:] + sides[:1], strict=True)
    return FRUIT not in sides and any(a == LEAF and b == LEAF for a, b in touching)


def test_fruit_fits_follows_the_rule_for_every_filling_of_the_six_sides() -> None:
    cell = key(10, 10)
    for sides in product((None, WOOD, LEAF, FLOWER, FRUIT), repeat=len(NEIGHBOURS)):
        tree: Tree = {cell + d: t for d, t in zip(NEIGHBOURS, sides, strict=True) if t is not None}
        assert fruit_fits(tree, cell) == _rule(sides), sides
