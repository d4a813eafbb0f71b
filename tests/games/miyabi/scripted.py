"""Build Miyabi states from a compact description, for tests that read like the rules.

A garden is a list of tiles in the order they were laid, each
``(shape, object, col)`` or ``(shape, object, col, rotation)``: the object cell lies in
its type's row (miyabi.md §5.3 P1) and column ``col`` (1-based), and the tile's layer
follows from what lies beneath it. Lanterns, passes, the middle and whose turn it is are
set afterwards, as the test says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from niwa.engine import IllegalAction
from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.garden import Garden, Placement
from niwa.engine.rulesets.miyabi.rules import SHAPES, SIZE, TYPES, kind_of, shape_of, type_of
from niwa.engine.rulesets.miyabi.state import CHOOSE, PLACE, MiyabiState

Tile = tuple[Any, ...]


def kind(shape: str, obj: str) -> int:
    return kind_of(SHAPES.index(shape), TYPES.index(obj))


def lay(state: MiyabiState, garden: Garden, tile: Tile) -> int:
    """Put one tile on ``garden`` as the description says; returns its layer."""
    shape, obj, col, *rest = tile
    rotation = rest[0] if rest else 0
    k = kind(shape, obj)
    orientation = next(o for o in state.rules.shapes[shape_of(k)] if o.rotation == rotation)
    cells = orientation.footprints[type_of(k) * SIZE + col - 1]
    assert cells is not None, f"scripted tile {tile} leaves the grid"
    heights: set[int] = {garden.heights[c] for c in cells}
    assert len(heights) == 1, f"scripted tile {tile} does not lie flat"
    layer: int = heights.pop() + 1
    garden.place(k, Placement(col - 1, orientation, cells, layer))
    return layer


def scripted(
    players: int = 2,
    options: Mapping[str, Any] | None = None,
    gardens: Mapping[int, Sequence[Tile]] | None = None,
    middle: Sequence[tuple[str, str]] = (),
    current: int = 0,
    lanterns: Mapping[int, Sequence[int]] | None = None,
    passed: Sequence[int] = (),
    taken: tuple[str, str] | None = None,
    round_: int = 1,
    start: int = 0,
) -> MiyabiState:
    """A state in the middle of a turn: ``current`` takes a tile (or, with ``taken``,
    places that tile); ``lanterns`` lists the filled columns per seat."""
    state = GAME.new_game(players, options)
    state.round, state.start = round_, start
    state.to_deal = [0] * len(SHAPES)
    for seat, tiles in (gardens or {}).items():
        g = state.gardens[seat]
        for tile in tiles:
            lay(state, g, tile)
            state.supply[kind(tile[0], tile[1])] -= 1
        g.lanterns = [False] * SIZE
    for seat, cols in (lanterns or {}).items():
        for c in cols:
            state.gardens[seat].lanterns[c - 1] = True
    for seat in passed:
        state.gardens[seat].passed = True
    for shape, obj in middle:
        state.display[kind(shape, obj)] += 1
        state.supply[kind(shape, obj)] -= 1
    state.phase, state.current = CHOOSE, current
    if taken is not None:
        state.phase, state.chosen = PLACE, kind(*taken)
        state.supply[state.chosen] -= 1
    return state


def place(state: MiyabiState, row: int, col: int, rotation: int = 0) -> None:
    state.apply({state.current: {"type": "place", "row": row, "col": col, "rotation": rotation}})


def refusal(state: MiyabiState, action: Any) -> IllegalAction:
    """The IllegalAction ``action`` raises for the seat to move (the state must not change)."""
    before = state.to_json()
    try:
        state.apply({state.to_move()[0]: action})
    except IllegalAction as e:
        assert state.to_json() == before, "a refused move changed the state"
        return e
    raise AssertionError(f"{action!r} was accepted")
