"""The lazy deck (DESIGN.md): an unordered multiset, drawn one chance node at a time.

With Tokonoma (bonsai.md §9) the deck is a top pile over a bottom pile. The top pile
holds the unseen Parchments plus ``top_others`` cards that were shuffled in from the
rest; since those are a uniform random subset, a non-Parchment card of the top pile is a
uniform pick from ``pool``, the multiset it shares with the bottom pile. Without Tokonoma
the top pile is empty and every card is in ``pool``.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.rulesets.bonsai.rules import KIND_ORDER


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
