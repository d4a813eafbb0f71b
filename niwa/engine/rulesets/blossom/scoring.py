"""Flower values (blossom.md §6): computed once, before any card moves."""

from __future__ import annotations

from niwa.engine.rulesets.blossom.rules import (
    ANEMONE,
    CAMELLIA,
    CHERRY,
    CHERRY_POINTS,
    CHRYSANTH,
    LILY,
    ROSE,
    SCORE_STEP,
)


def flower_value(
    kind: int, yards_up: list[list[int]], yards_down: list[int], garden: list[int]
) -> int:
    """The value of one card of ``kind`` being arranged, by blossom.md §6.

    ``yards_up`` holds every player's face-up yard (the cards being moved still count
    there), ``yards_down`` every player's face-down count, ``garden`` the garden."""
    # Only the totals the kind's rule reads are summed: an arrange values one kind.
    if kind == CHERRY:
        return CHERRY_POINTS
    if kind == CAMELLIA:
        return 4 * (sum(yards_down) // 2)
    if kind == ROSE:
        return 2 + sum(1 for c in garden if c)
    if kind == LILY:
        # §6 LILY detail: only face-up yard lilies are identified.
        return 2 * sum(y[LILY] for y in yards_up) + garden[LILY]
    up = sum(map(sum, yards_up))
    if kind == CHRYSANTH:
        return 7 if up > sum(yards_down) else 2
    if kind == ANEMONE:
        return 2 * ((up + sum(garden)) // 4)
    raise ValueError(f"unknown kind {kind}")


def arrange_points(value: int, moved: int) -> int:
    """Points gained: value × cards moved, rounded up to a multiple of 3 (§6)."""
    total = value * moved
    return -(-total // SCORE_STEP) * SCORE_STEP
