"""Scoring: the immediate score of a placement, the layer-5 bonus, the end-game
majorities per object type and the two end-game variants (miyabi.md §6, §8)."""

from __future__ import annotations

from collections.abc import Sequence

from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.rules import (
    BONUS_LAYER,
    KIND_OBJECTS,
    SIZE,
    TYPES,
    Rules,
)


def placement_points(kind: int, layer: int) -> int:
    """Objects on the tile x the layer it lies on (miyabi.md §6.1)."""
    return KIND_OBJECTS[kind] * layer


def earns_bonus(rules: Rules, layer: int) -> bool:
    """Whether a tile on ``layer`` qualifies for its type's bonus tile (miyabi.md §6.2,
    option bonusLayerMode)."""
    return layer >= BONUS_LAYER if rules.bonus_at_least else layer == BONUS_LAYER


def majority_points(rules: Rules, counts: Sequence[int]) -> list[int]:
    """Points per player for one object type, from each player's object count
    (miyabi.md §6.3 and the options majorityTieFirst, majorityTieSecond,
    majorityMinObjects)."""
    points = [0] * len(counts)
    eligible = [n for n in counts if n >= rules.min_objects]
    if not eligible:
        return points
    best = max(eligible)
    firsts = [i for i, n in enumerate(counts) if n == best and n >= rules.min_objects]
    if len(firsts) == 1 or rules.tie_first in ("allFirst", "allFirstThenSecond"):
        for i in firsts:
            points[i] = rules.majority_first
    else:  # split: the tied share both values
        for i in firsts:
            points[i] = (rules.majority_first + rules.majority_second) // len(firsts)
    if len(firsts) > 1 and rules.tie_first != "allFirstThenSecond":
        return points  # the tie for most used up second place
    rest = [n for n in eligible if n < best]
    if not rest:
        return points
    runner = max(rest)
    seconds = [i for i, n in enumerate(counts) if n == runner and n >= rules.min_objects]
    if len(seconds) == 1 or rules.tie_second == "allSecond":
        share = rules.majority_second
    elif rules.tie_second == "split":
        share = rules.majority_second // len(seconds)
    else:  # none
        share = 0
    for i in seconds:
        points[i] = share
    return points


def _largest_group(members: Sequence[int], weight: Sequence[int]) -> int:
    """The largest total weight of an orthogonally connected group of cells whose
    ``members`` flag is set (heights do not break a group, miyabi.md §8)."""
    seen = [False] * len(members)
    best = 0
    for start, inside in enumerate(members):
        if not inside or seen[start]:
            continue
        seen[start] = True
        stack, total = [start], 0
        while stack:
            cell = stack.pop()
            total += weight[cell]
            r, c = divmod(cell, SIZE)
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < SIZE and 0 <= nc < SIZE:
                    n = nr * SIZE + nc
                    if members[n] and not seen[n]:
                        seen[n] = True
                        stack.append(n)
        best = max(best, total)
    return best


def colorful_garden(garden: Garden) -> int:
    """Variant A: objects in the largest connected group of visible object cells
    (bare board and green cells break it, miyabi.md §8)."""
    objects = garden.visible_object_cells()
    return _largest_group([n > 0 for n in objects], objects)


def big_meadow(garden: Garden) -> int:
    """Variant B: cells in the largest connected group of visible green cells."""
    green = garden.green_cells()
    return _largest_group(green, [1] * len(green))


def end_scoring(rules: Rules, gardens: Sequence[Garden]) -> list[dict[str, int]]:
    """The end-of-game points per player, by heading (miyabi.md §6.3, §8)."""
    counts = [g.objects_by_type(covered=rules.covered_count) for g in gardens]
    out: list[dict[str, int]] = [{} for _ in gardens]
    for t, name in enumerate(TYPES):
        for i, pts in enumerate(majority_points(rules, [c[t] for c in counts])):
            out[i][name] = pts
    for i, g in enumerate(gardens):
        if rules.colorful_garden:
            out[i]["colorful_garden"] = colorful_garden(g) * rules.colorful_garden
        if rules.big_meadow:
            out[i]["big_meadow"] = big_meadow(g) * rules.big_meadow
    return out
