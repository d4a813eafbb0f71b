"""The deck and the trick rule (tsubaki.md §1, §5)."""

from __future__ import annotations

from collections.abc import Sequence

RANKS = "23456789TJQKA"
SUITS = "CDHS"
#: Every card, in hand order (by suit, then rank).
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_ORDER = {card: i for i, card in enumerate(DECK)}


def suit(card: str) -> str:
    return card[1]


def rank(card: str) -> int:
    return RANKS.index(card[0])


def sort_hand(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=_ORDER.__getitem__)


def trick_winner(plays: Sequence[tuple[int, str]], trump: str | None) -> int:
    """The seat that takes a full trick: highest trump, else highest of the suit led."""
    led = suit(plays[0][1])

    def strength(play: tuple[int, str]) -> tuple[int, int]:
        s = suit(play[1])
        return (2 if s == trump else 1 if s == led else 0, rank(play[1]))

    return max(plays, key=strength)[0]


def follows(hand: Sequence[str], card: str, led: str | None) -> bool:
    """Whether playing ``card`` from ``hand`` keeps the follow-suit rule (§5)."""
    return led is None or suit(card) == led or all(suit(c) != led for c in hand)
