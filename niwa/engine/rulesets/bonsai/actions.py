"""Bonsai's actions, chance outcomes and phases as types (docs/adding-a-game.md, "Typed
actions and phases"). At run time an action is still a plain dict and a phase a str:
the JSON on the wire, in replays and in golden playthroughs is unchanged."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, NotRequired, TypedDict


class Phase(StrEnum):
    """Where a turn is (the list in state.py's docstring says what each phase does)."""

    GOAL_SETUP = "goal_setup"
    REVEAL = "reveal"
    CHOOSE = "choose"
    MASTER = "master"
    HELPER = "helper"
    CULTIVATE = "cultivate"
    CLAIM = "claim"
    DISCARD = "discard"
    OVER = "over"


class Bare(TypedDict):
    """Cultivating, ending the placing, or flipping a bare pot."""

    type: Literal["cultivate", "end_placing", "flip_pot"]


class Meditate(TypedDict):
    """Taking the card of a slot (1-based); ``tile`` when the slot offers a choice."""

    type: Literal["meditate"]
    slot: int
    tile: NotRequired[str]


class Tile(TypedDict):
    """Choosing a wild tile's type, or discarding a tile down to capacity."""

    type: Literal["choose_tile", "discard"]
    tile: str


class Goal(TypedDict):
    """Claiming or renouncing a goal met."""

    type: Literal["claim", "renounce"]
    goal: str


class Place(TypedDict):
    """Placing a tile on a cell ``[u, v]`` of the tree."""

    type: Literal["place"]
    tile: str
    cell: list[int]


class Remove(TypedDict):
    """Shedding the tile on a cell of a stuck tree."""

    type: Literal["remove"]
    cell: list[int]


class Goals(TypedDict):
    """A chance outcome: the goal colours drawn at set-up."""

    type: Literal["goals"]
    colours: list[str]


class Reveal(TypedDict):
    """A chance outcome: the kind of card revealed."""

    type: Literal["reveal"]
    card: str


BonsaiAction = Bare | Meditate | Tile | Goal | Place | Remove
BonsaiChance = Goals | Reveal
