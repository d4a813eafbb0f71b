"""Text pictures of the table and one-line narration of actions.

A garden cell shows what lies on top and the height of its stack: ``P2`` is a pagoda
object on layer 2, ``g3`` a plain green cell on layer 3, ``.`` the bare board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from niwa.engine.api import CHANCE, Action
from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.moves import parse_placement
from niwa.engine.rulesets.miyabi.rules import SHAPES, SIZE, TYPES, kind_of, shape_of, type_of
from niwa.engine.rulesets.miyabi.scoring import earns_bonus, placement_points

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.state import MiyabiState

LETTER = {t: t[0].upper() for t in TYPES}  # maple M, pagoda P, fish F, azalea A, boxwood B, stone S


def garden_lines(g: Garden) -> list[str]:
    """The 6 x 6 garden with the lantern fields above it and each row's visible objects."""
    objects = g.visible_object_cells()
    green = g.green_cells()
    lantern_row = " ".join(" L" if lit else " ." for lit in g.lanterns)
    lines = [
        f"{'lantern':>8}  {lantern_row}",
        f"{'':>8}  " + " ".join(f"{c + 1:>2}" for c in range(SIZE)),
    ]
    visible = g.objects_by_type()
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            cell = r * SIZE + c
            if objects[cell]:
                cells.append(
                    f"{LETTER[TYPES[type_of(g.tiles[g.top[cell]].kind)]]}{g.heights[cell]}"
                )
            elif green[cell]:
                cells.append(f"g{g.heights[cell]}")
            else:
                cells.append(" .")
        lines.append(f"{r + 1} {TYPES[r]:<7} " + " ".join(cells) + f"   {visible[r]} visible")
    return lines


def _counts(counts: list[int]) -> str:
    parts = []
    for s, shape in enumerate(SHAPES):
        items = [
            f"{TYPES[t]} x{counts[kind_of(s, t)]}"
            for t in range(len(TYPES))
            if counts[kind_of(s, t)]
        ]
        if items:
            parts.append(f"{shape}: {' '.join(items)}")
    return "; ".join(parts) or "empty"


def table(state: MiyabiState, seat: int | None) -> str:
    """Round, the middle, the bonus tiles and every garden (nothing is hidden)."""
    if state.phase == "over":
        status = "game over"
    elif state.phase == "deal":
        status = "laying out the round's tiles"
    else:
        step = "places the tile taken" if state.phase == "place" else "takes a tile or passes"
        status = f"seat {state.current} {step}"
    header = f"Miyabi, round {state.round} of {state.rules.rounds}"
    lines = [
        f"{header}, start player seat {state.start}: {status}",
        f"Middle: {_counts(state.display)}",
    ]
    if state.chosen >= 0:
        lines.append(f"Taken: {SHAPES[shape_of(state.chosen)]} {TYPES[type_of(state.chosen)]}")
    bonus = [
        f"{t} {state.rules.bonus_points[i]}" for i, t in enumerate(TYPES) if state.bonus_left[i]
    ]
    lines.append(f"Layer-5 bonus tiles left: {', '.join(bonus) or 'none'}")
    for i, g in enumerate(state.gardens):
        you = " (you)" if i == seat else ""
        flags = ", passed" if g.passed and state.phase != "over" else ""
        lines.append("")
        lines.append(f"Seat {i}{you}: {g.score} points{flags}")
        if g.end:
            parts = [f"{name.replace('_', ' ')} {pts}" for name, pts in g.end.items() if pts]
            lines.append(f"  end scoring: {', '.join(parts) or 'nothing'}")
        lines.extend(garden_lines(g))
    return "\n".join(lines)


def describe(state: MiyabiState, seat: int, action: Action) -> str:
    """One sentence for ``seat`` taking ``action`` in ``state`` (before it is applied)."""
    kind = action.get("type") if isinstance(action, dict) else None
    if seat == CHANCE and kind == "deal":
        return f"a {action['shape']} {action['object']} tile is laid out in the middle"
    if kind == "take":
        return f"seat {seat} takes a {action['shape']} {action['object']} tile from the middle"
    if kind == "pass":
        return f"seat {seat} passes for the rest of round {state.round}"
    if kind == "place" and state.chosen >= 0:
        shape, obj = SHAPES[shape_of(state.chosen)], TYPES[type_of(state.chosen)]
        try:
            layer = parse_placement(state, seat, action).layer
        except ValueError:
            return f"seat {seat} tries an illegal placement {action!r}"
        points = placement_points(state.chosen, layer)
        bonus = ""
        if state.bonus_left[type_of(state.chosen)] and earns_bonus(state.rules, layer):
            bonus = f" and the {obj} bonus tile ({state.rules.bonus_points[type_of(state.chosen)]})"
        return (
            f"seat {seat} places the {shape} {obj} tile at row {action['row']}, column"
            f" {action['col']} (rotation {action['rotation']}) on layer {layer}"
            f" for {points} points{bonus}"
        )
    return f"seat {seat}: {action!r}"
