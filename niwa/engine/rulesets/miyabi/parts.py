"""Which parts of the board a Miyabi move touches, for a person clicking the board
(Game.board_parts): ids the renderer (viewer.js) sets as ``data-part``."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine.api import JSON, Action


def board_parts(view: Mapping[str, JSON], action: Action) -> list[str]:
    """``middle:SHAPE:OBJECT`` (a tile kind of the middle display) or ``cell:ROW,COL``
    (the 1-based cell of the seat's garden a tile is placed at); none for passing (the
    move list offers it)."""
    kind = action["type"]
    if kind == "take":
        return [f"middle:{action['shape']}:{action['object']}"]
    if kind == "place":
        return [f"cell:{action['row']},{action['col']}"]
    return []
