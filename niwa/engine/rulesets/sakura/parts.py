"""Which parts of the board a Sakura move touches, for a person clicking the board
(Game.board_parts): ids the renderer (viewer.js) sets as ``data-part``."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine.api import JSON, Action


def board_parts(view: Mapping[str, JSON], action: Action) -> list[str]:
    """``card:N`` (a card in the seat's hand; a supplier's play touches both its
    cards), ``emperor``, or ``painter:P`` (the court painter the seat moves)."""
    kind = action["type"]
    if kind == "play":
        cards = [action["card"], *([action["court_card"]] if "court_card" in action else [])]
        return [f"card:{n}" for n in cards]
    if kind == "emperor":
        return ["emperor"]
    return [f"painter:{view['court']}"]
