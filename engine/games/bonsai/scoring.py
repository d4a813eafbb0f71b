"""Goal tests and final scoring (bonsai.md §4, §5, §6.5)."""

from __future__ import annotations

from collections.abc import Iterable

from .rules import CARD_KINDS, FLOWER, FRUIT, GOALS, LEAF, SCORING, TILE_CODE, Goal
from .tree import Tree, count, flowers_one_side, free_sides, kengai, largest_leaf_group


def goal_met(goal: Goal, tree: Tree, flipped: bool) -> bool:
    """Whether a bonsai meets or exceeds a goal tile (bonsai.md §6.5)."""
    test = goal.test
    if test == "wood":
        return count(tree, TILE_CODE["wood"]) >= goal.need
    if test == "leafGroup":
        return largest_leaf_group(tree) >= goal.need
    if test == "fruit":
        return count(tree, FRUIT) >= goal.need
    if test == "flowersOneSide":
        return flowers_one_side(tree, flipped) >= goal.need
    return kengai(tree, flipped, goal.level)


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


def parchment_points(kind: str, tree: Tree, cards: Iterable[str]) -> int:
    """One Parchment card's points (bonsai.md §2.2, P1-P7)."""
    card = CARD_KINDS[kind]
    if card.per in TILE_CODE:
        return card.points * count(tree, TILE_CODE[card.per])
    return card.points * sum(1 for c in cards if CARD_KINDS[c].type == card.per)


def breakdown(tree: Tree, cards: list[str], claimed: Iterable[str]) -> dict[str, int]:
    """Every part of a player's score, and the total."""
    parts = tree_points(tree)
    parts["parchments"] = sum(
        parchment_points(c, tree, cards) for c in cards if CARD_KINDS[c].type == "parchment"
    )
    parts["goals"] = sum(GOALS[g].points for g in claimed)
    parts["total"] = sum(parts.values())
    return parts
