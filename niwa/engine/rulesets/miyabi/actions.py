"""Miyabi's actions, chance outcomes and phases as types (docs/adding-a-game.md, "Typed
actions and phases"). At run time an action is still a plain dict and a phase a str:
the JSON on the wire, in replays and in golden playthroughs is unchanged."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, TypedDict


class Phase(StrEnum):
    """Where a round is."""

    DEAL = "deal"
    CHOOSE = "choose"
    PLACE = "place"
    OVER = "over"


class Take(TypedDict):
    """Taking a tile of one kind (shape and object) from the display."""

    type: Literal["take"]
    shape: str
    object: str


class Pass(TypedDict):
    type: Literal["pass"]


class Place(TypedDict):
    """Placing the taken tile: 1-based row and column, a quarter-turn count."""

    type: Literal["place"]
    row: int
    col: int
    rotation: int


class Deal(TypedDict):
    """A chance outcome: a tile of one kind dealt to the display."""

    type: Literal["deal"]
    shape: str
    object: str


MiyabiAction = Take | Pass | Place
MiyabiChance = Deal
