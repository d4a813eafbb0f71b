"""Sakura's hidden-chance plugin hooks: which pending draws a seat will not see, and the
search's fast re-deal (a copy of one determinization with the hidden cards dealt again,
the distribution of ``determinize``)."""

from __future__ import annotations

from niwa.engine import draws
from niwa.engine.api import ChanceTest, Dealer, Rng, State
from niwa.engine.rulesets.sakura.state import DRAWING, SakuraState


def unseen(seat: int) -> ChanceTest:
    """A card drawn into another seat's hand is hidden from ``seat``."""

    def test(state: State) -> bool:
        assert isinstance(state, SakuraState)
        return state.phase in DRAWING and state.draws[0] != seat

    return test


def dealer(base: SakuraState, seat: int) -> Dealer:
    """Sakura hides the other seats' hands and the deck (sakura.md §6 #2); both are kept
    sorted, and every card number is unique."""
    others = [s for s in range(len(base.hands)) if s != seat]
    pool = sorted([c for s in others for c in base.hands[s]] + base.deck)
    unseen = frozenset(pool)
    sizes = [(s, len(base.hands[s])) for s in others]
    drawn = sum(size for _, size in sizes)

    def deal(rng: Rng) -> State:
        state = base.clone()
        taken = draws.sample(rng, pool, drawn)
        at = 0
        for s, size in sizes:
            state.hands[s] = sorted(taken[at : at + size])
            at += size
        state.deck = sorted(unseen.difference(taken))  # the rest, in C
        return state

    return deal
