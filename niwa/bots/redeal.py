"""Cheaper determinizations for the search, per game.

A game's ``determinize`` rebuilds a whole state from the observation (every public
field decoded again) for each of the search's iterations, though within one search only
the hidden part changes. For a game listed here the search asks the engine for one
determinization, and each iteration copies it and deals the hidden cards again, with
the same distribution as the engine's own ``determinize``. The copies are of a state
fresh from ``determinize`` that nothing has asked for legal actions or chance outcomes,
so no cached listing is carried over into a copy whose cards then change.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from niwa.bots import draws
from niwa.engine import State
from niwa.engine.rulesets.blossom.state import REMOVE, BlossomState
from niwa.engine.rulesets.sakura.state import DRAWING, SakuraState

#: A dealer of fresh determinizations: a new state per call, hidden cards re-dealt.
Dealer = Callable[[random.Random], State]


def dealer(game: str, base: State, seat: int) -> Dealer | None:
    """Fresh determinizations like ``base`` (made by the engine for ``seat``), or None
    where the game has no cheaper way than its own ``determinize``."""
    if game == "blossom":
        assert isinstance(base, BlossomState)
        return _blossom(base, seat)
    if game == "sakura":
        assert isinstance(base, SakuraState)
        return _sakura(base, seat)
    return None


#: Whether the chance outcome pending in a state is hidden from the searching seat.
Unseen = Callable[[State], bool]


def unseen_chance(game: str, seat: int) -> Unseen | None:
    """For a game listed here: whether the pending chance outcome is one ``seat`` will
    not see (a card dealt to another seat's hand, or set aside face down); None where
    the search should treat every outcome as seen."""
    if game == "blossom":
        def blossom(state: State) -> bool:
            assert isinstance(state, BlossomState)
            target = state.queue[0]
            return target == REMOVE or (type(target) is int and target != seat)
        return blossom
    if game == "sakura":
        def sakura(state: State) -> bool:
            assert isinstance(state, SakuraState)
            return state.phase in DRAWING and state.draws[0] != seat
        return sakura
    return None


def _cards(counts: list[int]) -> list[int]:
    return [k for k, c in enumerate(counts) for _ in range(c)]


def _counts(cards: list[int], kinds: int) -> list[int]:
    out = [0] * kinds
    for k in cards:
        out[k] += 1
    return out


def _blossom(base: BlossomState, seat: int) -> Dealer:
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

    def deal(rng: random.Random) -> State:
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


def _sakura(base: SakuraState, seat: int) -> Dealer:
    """Sakura hides the other seats' hands and the deck (sakura.md §6 #2); both are kept
    sorted, and every card number is unique."""
    others = [s for s in range(len(base.hands)) if s != seat]
    pool = sorted([c for s in others for c in base.hands[s]] + base.deck)
    unseen = frozenset(pool)
    sizes = [(s, len(base.hands[s])) for s in others]
    drawn = sum(size for _, size in sizes)

    def deal(rng: random.Random) -> State:
        state = base.clone()
        taken = draws.sample(rng, pool, drawn)
        at = 0
        for s, size in sizes:
            state.hands[s] = sorted(taken[at : at + size])
            at += size
        state.deck = sorted(unseen.difference(taken))  # the rest, in C
        return state

    return deal
