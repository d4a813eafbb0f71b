"""Tsubaki's moves and phases, typed (tsubaki.md §9). Both stay plain JSON on the wire:
an action is a dict, a phase a ``str``."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeAlias, TypedDict


class Bid(TypedDict):
    """The tricks a seat says it will take (§4)."""

    bid: int


class Play(TypedDict):
    """A card from the hand, written rank then suit, e.g. ``"QH"`` (§5); chance deals
    with the same shape (§3)."""

    card: str


TsubakiAction: TypeAlias = Bid | Play


class Phase(StrEnum):
    DEAL = "deal"
    BID = "bid"
    PLAY = "play"
    OVER = "over"
