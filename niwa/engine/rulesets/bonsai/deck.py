"""The lazy deck: an unordered multiset, drawn one chance node at a time.

With Tokonoma (bonsai.md §9) the deck is a top pile over a bottom pile. The top pile
holds the unseen Parchments plus ``top_others`` cards that were shuffled in from the
rest; since those are a uniform random subset, a non-Parchment card of the top pile is a
uniform pick from ``pool``, the multiset it shares with the bottom pile. Without Tokonoma
the top pile is empty and every card is in ``pool``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from itertools import accumulate, islice

from niwa.engine.rulesets.bonsai.rules import KIND_ORDER

#: How close ``r * deck size`` may come to a whole number before :func:`draw` walks the
#: odds in floats: far wider than that walk's rounding (about 1e-14 for any real deck).
EDGE = 1e-9


def draw_odds(
    top_parchments: Mapping[str, int], top_others: int, pool: Mapping[str, int]
) -> list[tuple[str, float]]:
    """The next card's distribution: uniform over the top pile, then over the pool."""
    top = (sum(top_parchments.values()) if top_parchments else 0) + top_others
    if not top:  # no Tokonoma top pile: a plain multiset draw
        total = sum(pool.values())
        # the pool is kept in KIND_ORDER (deck_for, codec) and take() drops empty kinds
        return [(k, n / total) for k, n in pool.items()]
    weights = {k: n / top for k, n in top_parchments.items()}
    share = top_others / top / sum(pool.values()) if top_others else 0.0
    if share:
        for k, n in pool.items():
            weights[k] = weights.get(k, 0.0) + n * share
    return [(k, weights[k]) for k in KIND_ORDER if weights.get(k, 0.0) > 0]


def draw(pool: Mapping[str, int], r: float) -> str:
    """The card State.sample_chance picks from the plain multiset ``pool`` for
    ``rng.random() == r``: the walk down the odds ``n / total`` until ``r * sum(odds)``
    runs out. Done in whole cards (C-level cumulative counts and a bisection), which
    picks the same card unless ``r * total`` lies within :data:`EDGE` of a whole number,
    where rounding could decide: there the float walk itself is done."""
    values = pool.values()
    y = r * sum(values)
    if abs(y - round(y)) < EDGE:
        return _walk(pool, r)
    return next(islice(pool, bisect_right(list(accumulate(values)), y), None))


def _walk(pool: Mapping[str, int], r: float) -> str:
    """State.sample_chance over draw_odds' plain multiset draw, in the same float steps."""
    total = sum(pool.values())
    x = r * sum([n / total for n in pool.values()])
    kind = ""
    for kind, n in pool.items():
        x -= n / total
        if x < 0:
            return kind
    return kind  # rounding left x >= 0: the last, as there


def can_draw(
    top_parchments: Mapping[str, int], top_others: int, pool: Mapping[str, int], kind: object
) -> bool:
    """Whether ``kind`` may be the next card (a cheap check of :func:`draw_odds`)."""
    if not isinstance(kind, str):
        return False
    if top_parchments.get(kind):
        return True
    top = (sum(top_parchments.values()) if top_parchments else 0) + top_others
    return bool((top_others or not top) and pool.get(kind))


def take(multiset: dict[str, int], kind: str) -> None:
    multiset[kind] -= 1
    if not multiset[kind]:
        del multiset[kind]
