"""Blossom's actions, chance outcomes and phases as types (docs/adding-a-game.md, "Typed
actions and phases"). At run time an action is still a plain dict and a phase a str:
the JSON on the wire, in replays and in golden playthroughs is unchanged."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, TypedDict, final


class Phase(StrEnum):
    """Where the game is: the deal, the optional mulligan (blossom.md §9), play, the end."""

    SETUP = "setup"
    MULLIGAN = "mulligan"
    PLAY = "play"
    OVER = "over"


class Cards(TypedDict):
    """Feeding cards face down, flipping face-down yard cards, or a mulligan: kind ids."""

    type: Literal["feed_down", "flip", "mulligan"]
    cards: list[str]


class FeedUp(TypedDict):
    """Feeding one card face up (blossom.md §5)."""

    type: Literal["feed_up"]
    card: str


# final: no other keys, so ``"count" in action`` tells the two arranges apart (for mypy too)
@final
class ArrangeCount(TypedDict):
    """Arranging ``count`` yard cards of one kind other than the cherry (§6)."""

    type: Literal["arrange"]
    kind: str
    count: int


@final
class ArrangeCherry(TypedDict):
    """Arranging the cherry, for its points or for draws (§6)."""

    type: Literal["arrange"]
    kind: str
    mode: Literal["points", "draw"]


class Bare(TypedDict):
    """Drawing another cherry card, or stopping."""

    type: Literal["cherry_draw", "cherry_stop"]


class CherryTake(TypedDict):
    type: Literal["cherry_take"]
    kind: str


DrawDeck = TypedDict("DrawDeck", {"type": Literal["draw"], "from": Literal["deck"]})
DrawGarden = TypedDict(
    "DrawGarden", {"type": Literal["draw"], "from": Literal["garden"], "kind": str}
)


class Dealer(TypedDict):
    """A chance outcome: who deals."""

    dealer: int


class Card(TypedDict):
    """A chance outcome: the kind of a card dealt."""

    card: str


Arrange = ArrangeCount | ArrangeCherry
Draw = DrawDeck | DrawGarden
BlossomAction = Cards | FeedUp | Arrange | Bare | CherryTake | Draw
BlossomChance = Dealer | Card
