"""Scripted Bonsai tables for the tests: trees drawn as text, stacked decks, set seats."""

from __future__ import annotations

from typing import Any

from niwa.engine import CHANCE
from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.rules import TILE_CODE, key
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.rulesets.bonsai.tree import Tree

GLYPHS = {"Wo": "wood", "Le": "leaf", "Fl": "flower", "Fr": "fruit"}


def tree(picture: str, umin: int = -4) -> Tree:
    """A tree from a picture in the render format: ``"  1 |   Le  Wo"`` rows, two
    columns per unit of u starting at ``umin``; ``~~`` (pot) and blanks are skipped.
    The bud at (0, 0) must be drawn."""
    cells: Tree = {}
    for line in picture.strip("\n").splitlines():
        if "|" not in line or line.split("|")[0].strip() == "u":
            continue
        left, _, right = line.partition("|")
        v = int(left)
        row = right[1:]
        for col in range(0, len(row) - 1, 2):
            glyph = row[col : col + 2]
            if glyph in GLYPHS:
                u = col // 2 + umin
                assert (u + v) % 2 == 0, f"({u}, {v}) is not a cell"
                cells[key(u, v)] = TILE_CODE[GLYPHS[glyph]]
    assert cells.get(key(0, 0)) == TILE_CODE["wood"], "draw the bud at (0, 0)"
    return cells


def cells(*uvs: tuple[int, int, str]) -> Tree:
    """A tree from (u, v, tile) triples; the bud is added."""
    t: Tree = {key(0, 0): TILE_CODE["wood"]}
    for u, v, tile in uvs:
        t[key(u, v)] = TILE_CODE[tile]
    return t


def table(
    players: int = 2,
    colours: tuple[str, ...] = ("brown", "green", "blue"),
    board: tuple[str, ...] = ("tool", "growth:leaf", "master:any", "helper:leaf"),
    options: dict[str, Any] | None = None,
) -> BonsaiState:
    """A game after set-up: the goal colours and the four revealed cards are scripted
    (``board`` lists slot 1 to slot 4); seat 0 is to choose its action."""
    state = GAME.new_game(players, options)
    assert isinstance(state, BonsaiState)
    if state.phase == "goal_setup":
        state.apply({CHANCE: {"type": "goals", "colours": sorted(colours, key=_colour_rank)}})
    for card in reversed(board):  # reveals fill the slot farthest from the deck first
        state.apply({CHANCE: {"type": "reveal", "card": card}})
    assert state.board == list(board) and state.phase == "choose"
    return state


def _colour_rank(colour: str) -> int:
    return ["brown", "green", "orange", "pink", "blue"].index(colour)


def supply(state: BonsaiState, seat: int, **tiles: int) -> None:
    """Set a seat's personal supply, e.g. ``supply(s, 0, wood=2, leaf=1)``."""
    state.seats[seat].supply = [tiles.get(t, 0) for t in ("wood", "leaf", "flower", "fruit")]
    state._legal = None  # a scripted edit: the cached legal actions no longer hold


def play(state: BonsaiState, *actions: dict[str, Any]) -> None:
    """Apply the current seat's actions in order."""
    for action in actions:
        seat = state.to_move()[0]
        state.apply({seat: action})


def reveal(state: BonsaiState, card: str) -> None:
    state.apply({CHANCE: {"type": "reveal", "card": card}})


def place(tile: str, u: int, v: int) -> dict[str, Any]:
    return {"type": "place", "tile": tile, "cell": [u, v]}


END = {"type": "end_placing"}
CULTIVATE = {"type": "cultivate"}


def meditate(slot: int, tile: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "meditate", "slot": slot}
    if tile is not None:
        action["tile"] = tile
    return action
