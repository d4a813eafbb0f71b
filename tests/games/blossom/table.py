"""Build scripted Blossom positions: ``table(hands=[...], yards_up=[...], ...)``.

Cards are given as strings of kind names separated by spaces ("rose rose lily"); every
card not placed anywhere else goes to the deck, unless ``deck`` is given (then the rest
goes to ``removed``).
"""

from __future__ import annotations

from typing import Any

from niwa.engine.rulesets.blossom import BlossomState
from niwa.engine.rulesets.blossom.codec import decode
from niwa.engine.rulesets.blossom.rules import FULL_DECK, KINDS


def cards(text: str) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for word in text.split():
        counts[word] += 1
    return counts


def table(
    players: int = 3,
    *,
    hands: list[str] | None = None,
    yards_up: list[str] | None = None,
    yards_down: list[str] | None = None,
    garden: str = "",
    deck: str | None = None,
    scores: list[int] | None = None,
    current: int = 0,
    dealer: int = 0,
    actions_done: int = 0,
    end_triggered: bool = False,
    options: dict[str, Any] | None = None,
) -> BlossomState:
    hands = hands or [""] * players
    ups = yards_up or [""] * players
    downs = yards_down or [""] * players
    placed = [cards(t) for t in [*hands, *ups, *downs, garden]]
    rest = {k: FULL_DECK[i] - sum(p[k] for p in placed) for i, k in enumerate(KINDS)}
    deck_counts = rest if deck is None else cards(deck)
    removed = {k: rest[k] - deck_counts[k] for k in KINDS}
    assert all(v >= 0 for v in removed.values()), f"more cards than the game has: {removed}"
    return decode(
        {
            "players": players,
            "options": {"mulligan": False, "cherryOverflowSource": "deck", **(options or {})},
            "phase": "play",
            "dealer": dealer,
            "queue": [],
            "resume": "draw",
            "deck": deck_counts,
            "removed": removed,
            "garden": cards(garden),
            "hands": [cards(h) for h in hands],
            "yards_up": [cards(y) for y in ups],
            "yards_down": [cards(y) for y in downs],
            "returned": [cards("") for _ in range(players)],
            "known": [cards("") for _ in range(players)],
            "scores": scores or [0] * players,
            "mulligan_next": None,
            "current": current,
            "actions_done": actions_done,
            "garden_drawn": False,
            "first_arranged": None,
            "cherry": None,
            "end_triggered": end_triggered,
            "turns": 1,
        },
        BlossomState,
    )


def act(state: BlossomState, action: dict[str, Any]) -> None:
    """Apply an action of the seat to move."""
    (seat,) = state.to_move()
    state.apply({seat: action})


def deal(state: BlossomState, kind: str) -> None:
    """Resolve the pending chance draw with a card of ``kind``."""
    state.apply({-1: {"card": kind}})
