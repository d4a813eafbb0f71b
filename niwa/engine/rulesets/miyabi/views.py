"""What a seat sees (``observe``) and the states consistent with it (``determinize``).

Miyabi has no hidden information: every tile in the box is known and every draw is face
up, so each seat sees the full snapshot plus derived views, and an observation rebuilds
the one true state. The envelope every game shares comes first (docs/games/miyabi.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, envelope
from niwa.engine.rulesets.miyabi import codec
from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.rules import CELLS, SIZE, SNAPSHOT, TYPES, VERSION
from niwa.engine.rulesets.miyabi.shared_json import FrozenDict, FrozenList

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.state import MiyabiState

#: Fields a garden's view adds to its snapshot.
DERIVED_GARDEN = ("height", "top", "visible_objects")


def observe(s: MiyabiState, seat: int | None) -> dict[str, JSON]:
    view = envelope(VERSION, seat, s.players, s.phase, s.to_move())
    view.update(codec.state_fields(s))
    for g, gj in zip(s.gardens, view["gardens"], strict=True):
        gj.update(_derived(g))
    return view


def _derived(g: Garden) -> dict[str, JSON]:
    """The fields a garden's view adds, kept (read-only, shared by every observation)
    until a tile is placed in it: they follow from its tiles alone."""
    kept = g.kept_view
    if kept is None or kept[0] != len(g.tiles):
        rows = range(SIZE)
        kept = g.kept_view = len(g.tiles), {
            "height": FrozenList(FrozenList(g.heights[r * SIZE : (r + 1) * SIZE]) for r in rows),
            "top": FrozenList(FrozenList(row) for row in _tops(g)),
            "visible_objects": FrozenDict(zip(TYPES, g.objects_by_type(), strict=True)),
        }
    return kept[1]


def _tops(g: Garden) -> list[list[str | None]]:
    """What lies on top of each cell, row by row: an object type, "green" or None;
    one pass over the cells (the tiles only matter through ``top``)."""
    tiles, top = g.tiles, g.top
    cells: list[str | None] = [None] * CELLS
    for cell, index in enumerate(top):
        if index >= 0:
            t = tiles[index]
            cells[cell] = TYPES[t.row] if cell == t.row * SIZE + t.col else "green"
    return [cells[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]


def determinize(observation: Mapping[str, Any], blank: codec.Blank) -> MiyabiState:
    """The state ``observation`` shows: its snapshot fields, stamped as a snapshot of
    the installed rules once the observation's ``game`` says it is of them."""
    if observation.get("game") != VERSION:
        raise ValueError(f"not a {VERSION} observation (game {observation.get('game')!r})")
    fields = {k: v for k, v in observation.items() if k in codec.FIELDS}
    fields["gardens"] = [
        {k: v for k, v in g.items() if k not in DERIVED_GARDEN} for g in observation["gardens"]
    ]
    return codec.from_json(SNAPSHOT.wrap(fields), blank)
