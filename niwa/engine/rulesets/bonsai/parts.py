"""Which parts of the board a Bonsai move touches, for a person clicking the board
(Game.board_parts): ids the renderer (viewer.js) sets as ``data-part``."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine.api import JSON, Action


def board_parts(view: Mapping[str, JSON], action: Action) -> list[str]:
    """``slot:N`` (a board slot, 1-based), ``cell:U,V`` (a cell of the seat's active
    tree: a tile placed or removed there), ``supply:TILE`` (a tile type of its
    supply); none for cultivating, ending the placing, flipping the pot, or a goal
    (the move list offers those)."""
    kind = action["type"]
    if kind == "meditate":
        return [f"slot:{action['slot']}"]
    if kind in ("place", "remove"):
        u, v = action["cell"]
        return [f"cell:{u},{v}"]
    if kind in ("choose_tile", "discard"):
        return [f"supply:{action['tile']}"]
    return []
