"""Blossom's hidden-chance plugin hooks: which pending draws a seat will not see, and
the search's fast re-deal (a copy of one determinization with the hidden cards dealt
again, the distribution of ``determinize``)."""

from __future__ import annotations

from niwa.engine import draws
from niwa.engine.api import ChanceTest, Dealer, Rng, State
from niwa.engine.rulesets.blossom.state import REMOVE, BlossomState


def unseen(seat: int) -> ChanceTest:
    """A card dealt to another seat, or removed face down, is hidden from ``seat``."""

    def test(state: State) -> bool:
        assert isinstance(state, BlossomState)
        target = state.queue[0]
        return target == REMOVE or (type(target) is int and target != seat)

    return test


def _cards(counts: list[int]) -> list[int]:
    return [k for k, c in enumerate(counts) for _ in range(c)]


def _counts(cards: list[int], kinds: int) -> list[int]:
    out = [0] * kinds
    for k in cards:
        out[k] += 1
    return out


def dealer(base: BlossomState, seat: int) -> Dealer:
    """Blossom hides the other seats' hands, face-down yards and mulligan returns, the
    removed cards and the deck (blossom.md §3, §4); the cards everyone saw a seat take
    (``known``) stay among that seat's hidden ones. The deck is a count of cards, so
    only the cards outside it are drawn; the deck keeps the rest."""
    kinds = len(base.deck)
    others = [s for s in range(base.n) if s != seat]
    pool: list[int] = _cards(base.removed) + _cards(base.deck)
    plan: list[tuple[int, list[int], int, int, int]] = []  # seat, known, drawn, hand, back
    for s in others:
        known = _cards(base.known[s])
        hidden = [h + d - k for h, d, k in zip(base.hands[s], base.downs[s], base.known[s],
                                               strict=True)]
        pool += _cards(hidden) + _cards(base.returned[s])
        in_hand = sum(base.hands[s])
        plan.append((s, known, sum(hidden), in_hand, sum(base.returned[s])))
    removed = sum(base.removed)
    drawn = removed + sum(p[2] + p[4] for p in plan)
    everything = _counts(pool, kinds)

    def deal(rng: Rng) -> State:
        state = base.clone()
        taken = draws.sample(rng, pool, drawn)
        at = 0
        for s, known, count, in_hand, back in plan:
            hidden = known + taken[at : at + count]
            at += count
            hand = (draws.sample(rng, hidden, in_hand) if 0 < in_hand < len(hidden)
                    else hidden[:in_hand])
            state.hands[s] = _counts(hand, kinds)
            state.downs[s] = [a - b for a, b in zip(_counts(hidden, kinds), state.hands[s],
                                                     strict=True)]
            state.returned[s] = _counts(taken[at : at + back], kinds)
            at += back
        state.removed = _counts(taken[at : at + removed], kinds)
        left = _counts(taken, kinds)
        state.deck = [a - b for a, b in zip(everything, left, strict=True)]
        return state

    return deal
