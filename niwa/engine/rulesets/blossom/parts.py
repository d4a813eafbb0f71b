"""Which parts of the board a Blossom move touches, for a person clicking the board
(Game.board_parts): ids the renderer (viewer.js) sets as ``data-part``."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine.api import JSON, Action


def board_parts(view: Mapping[str, JSON], action: Action) -> list[str]:
    """``hand:KIND`` (a card kind in the seat's hand), ``down:KIND`` (its face-down
    yard), ``yard:KIND`` (its face-up yard), ``garden:KIND``, ``deck``; none for
    stopping a cherry draw (the move list offers it)."""
    kind = action["type"]
    if kind in ("feed_down", "mulligan"):
        return sorted({f"hand:{c}" for c in action["cards"]})
    if kind == "feed_up":
        return [f"hand:{action['card']}"]
    if kind == "flip":
        return sorted({f"down:{c}" for c in action["cards"]})
    if kind == "arrange":
        return [f"yard:{action['kind']}"]
    if kind == "cherry_take":
        return [f"garden:{action['kind']}"]
    if kind == "draw":
        return ["deck"] if action["from"] == "deck" else [f"garden:{action['kind']}"]
    if kind == "cherry_draw":
        return ["deck"]
    return []
