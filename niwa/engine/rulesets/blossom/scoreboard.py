"""The viewer's score chart and end-of-game table for Blossom (blossom.md §9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, State
from niwa.engine.scoreboard import table


def score_now(view: Mapping[str, Any]) -> list[float]:
    """Points so far: every seat's total is on the table (public in the observation)."""
    return [float(x) for x in view["scores"]]


def round_ends(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A round is one turn of every seat: the turn counter crossed a multiple of the
    player count (turns count from 1, one per seat's turn)."""
    players = int(after["players"])
    done_before = max(0, int(before["turn"]) - 1) // players
    done_after = max(0, int(after["turn"]) - 1) // players
    return done_after > done_before


def breakdown(state: State) -> dict[str, JSON]:
    view = state.observe(None)
    seats = view["seats"]
    assert isinstance(seats, list)
    hand = [int(s["hand"]) for s in seats]
    up = [sum(s["yard_up"].values()) for s in seats]
    down = [int(s["yard_down"]) for s in seats]
    cards = [h + u + d for h, u, d in zip(hand, up, down, strict=True)]
    rows = [
        ("points", [int(x) for x in score_now(view)]),
        ("cards in hand", hand),
        ("yard, face up", up),
        ("yard, face down", down),
        ("cards in hand and yard", cards),
    ]
    rule = "Most points wins; a tie goes to fewer cards in hand and yard together; " \
        "still tied, the place is shared (§9)."
    return table(rows, state.result(), rule, ("fewer cards in hand and yard", cards))
