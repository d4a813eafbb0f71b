"""A quick value of a position for the built-in bots: each seat's score plus what its
bid is still likely to bring (tsubaki.md §6), scaled to [0, 1] against the best seat."""

from __future__ import annotations

from niwa.engine import State

from niwa_tsubaki.actions import Phase
from niwa_tsubaki.rules import EXACT_BONUS
from niwa_tsubaki.state import TsubakiState

#: The share of a still-makeable bid counted before the round ends.
HOPE = 0.5


def projected(state: TsubakiState, seat: int) -> float:
    score = float(state.scores[seat])
    bid = state.bids[seat] if state.bids else None
    if bid is None or state.phase in (Phase.DEAL, Phase.OVER):
        return score
    won, left = state.tricks_won[seat], len(state.hands[seat])
    if won > bid or bid - won > left:  # busted: the bid can no longer be met
        return score
    return score + HOPE * (EXACT_BONUS + bid)


def evaluate(state: State) -> list[float]:
    if not isinstance(state, TsubakiState):
        raise TypeError(f"the tsubaki heuristic values tsubaki states, not {type(state)}")
    values = [projected(state, s) for s in range(state.players)]
    top = max(values)
    return [v / top if top > 0 else 0.5 for v in values]
