"""Goal tests and final scoring (bonsai.md §4, §5, §6.5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from niwa.engine.rulesets.bonsai.growth import KENGAI_LEVELS, MEASURES, Growth
from niwa.engine.rulesets.bonsai.rules import (
    CARD_KINDS,
    FLOWER,
    FRUIT,
    GOALS,
    LEAF,
    SCORING,
    TILE_CODE,
    Goal,
)
from niwa.engine.rulesets.bonsai.tree import (
    Tree,
    count,
    flowers_one_side,
    free_sides,
    kengai_levels,
    largest_leaf_group,
)


def goal_met(goal: Goal, tree: Tree, flipped: bool) -> bool:
    """Whether a bonsai meets or exceeds a goal tile (bonsai.md §6.5)."""
    return bool(goals_met([goal], tree, flipped))


def goals_met(goals: list[Goal], tree: Tree, flipped: bool) -> list[Goal]:
    """The goals of ``goals`` the bonsai meets; each measure is computed at most once."""
    measures: dict[str, int] = {}
    kengai_levels_seen: dict[str, bool] | None = None
    met = []
    for goal in goals:
        if goal.test.startswith("kengai"):
            if kengai_levels_seen is None:
                kengai_levels_seen = kengai_levels(tree, flipped)
            if kengai_levels_seen[goal.level]:
                met.append(goal)
            continue
        if goal.test not in measures:
            measures[goal.test] = _measure(goal, tree, flipped)
        if measures[goal.test] >= goal.need:
            met.append(goal)
    return met


def goals_met_by(goals: list[str], growth: Growth) -> list[str]:
    """:func:`goals_met` from a bonsai's kept measures (growth.py), no rescan: the ids
    of ``goals`` the bonsai meets, in their order."""
    if not goals:
        return []
    levels = growth.levels()
    return [g for g in goals if levels[_LEVEL[g]] >= _NEED[g]]


def _level_index(goal: Goal) -> int:
    if goal.test.startswith("kengai"):
        return len(MEASURES) + KENGAI_LEVELS.index(goal.level)
    return MEASURES.index(goal.test)


#: Per goal: where Growth.levels() holds its measure, and the least value meeting it (a
#: kengai goal is met by its flag alone, as in goals_met).
_LEVEL: Final = {g.id: _level_index(g) for g in GOALS.values()}
_NEED: Final = {g.id: 1 if g.test.startswith("kengai") else g.need for g in GOALS.values()}


def _measure(goal: Goal, tree: Tree, flipped: bool) -> int:
    test = goal.test
    if test == "wood":
        return count(tree, TILE_CODE["wood"])
    if test == "leafGroup":
        return largest_leaf_group(tree)
    if test == "fruit":
        return count(tree, FRUIT)
    return flowers_one_side(tree, flipped)


def tree_points(tree: Tree) -> dict[str, int]:
    """Points of the tiles: leaf 3, flower 1 per free side, fruit 7, wood 0 (bonsai.md §5)."""
    leaf = flower = fruit = 0
    for cell, t in tree.items():
        if t == LEAF:
            leaf += SCORING["leaf"]
        elif t == FRUIT:
            fruit += SCORING["fruit"]
        elif t == FLOWER:
            flower += SCORING["flowerPerFreeSide"] * free_sides(tree, cell)
    return {"leaf": leaf, "flower": flower, "fruit": fruit}


def parchment_points(kind: str, trees: list[Tree], cards: Iterable[str]) -> int:
    """One Parchment card's points (bonsai.md §2.2, P1-P7); tiles count in every bonsai."""
    card = CARD_KINDS[kind]
    if card.per in TILE_CODE:
        return card.points * sum(count(t, TILE_CODE[card.per]) for t in trees)
    return card.points * sum(1 for c in cards if CARD_KINDS[c].type == card.per)


def breakdown(trees: list[Tree], cards: list[str], claimed: Iterable[str]) -> dict[str, int]:
    """Every part of a player's score, and the total (both bonsai in the Emperor challenge)."""
    parts = {"leaf": 0, "flower": 0, "fruit": 0}
    for tree in trees:
        for part, points in tree_points(tree).items():
            parts[part] += points
    parts["parchments"] = sum(
        parchment_points(c, trees, cards) for c in cards if CARD_KINDS[c].type == "parchment"
    )
    parts["goals"] = sum(GOALS[g].points for g in claimed)
    parts["total"] = sum(parts.values())
    return parts
