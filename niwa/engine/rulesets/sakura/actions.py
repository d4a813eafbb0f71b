"""Sakura's actions, chance outcomes and phases as types (docs/adding-a-game.md, "Typed
actions and phases"). At run time an action is still a plain dict and a phase a str:
the JSON on the wire, in replays and in golden playthroughs is unchanged."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, NotRequired, TypedDict


class Phase(StrEnum):
    """Where a round is (sakura.md §6)."""

    DEAL = "deal"
    CHOOSE = "choose"
    COURT = "court"
    RESOLVE = "resolve"
    DRAW = "draw"
    OVER = "over"


class Play(TypedDict):
    """A card played; the supplier plays a second one to the court (``court_card``)."""

    type: Literal["play"]
    card: int
    court_card: NotRequired[int]


class Direction(TypedDict):
    """Moving the Emperor or the court painter."""

    type: Literal["emperor", "painter"]
    direction: Literal["forward", "back"]


class Card(TypedDict):
    """A chance outcome: a card drawn into a hand, or revealed for the court."""

    type: Literal["draw", "reveal"]
    card: int


SakuraAction = Play | Direction
SakuraChance = Card
