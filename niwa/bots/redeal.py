"""Cheaper determinizations for the search, through the game's hidden-chance plugin
hooks (``Game.redealer``, ``Game.unseen_chance``; niwa.engine.api).

A game's ``determinize`` rebuilds a whole state from the observation (every public
field decoded again) for each of the search's iterations, though within one search only
the hidden part changes. For a game with a re-dealer the search asks the engine for one
determinization, and each iteration copies it and deals the hidden cards again, with
the same distribution as the engine's own ``determinize``. The copies are of a state
fresh from ``determinize`` that nothing has asked for legal actions or chance outcomes,
so no cached listing is carried over into a copy whose cards then change.
"""

from __future__ import annotations

from niwa.engine import State, registry
from niwa.engine.api import ChanceTest, Dealer

#: Whether the chance outcome pending in a state is hidden from the searching seat.
Unseen = ChanceTest

__all__ = ["Dealer", "Unseen", "dealer", "unseen_chance"]


def dealer(game: str, base: State, seat: int) -> Dealer | None:
    """Fresh determinizations like ``base`` (made by the engine for ``seat``), or None
    where the game has no cheaper way than its own ``determinize``."""
    return registry.load(game).redealer(base, seat)


def unseen_chance(game: str, seat: int) -> Unseen | None:
    """Whether the pending chance outcome is one ``seat`` will not see (a card dealt to
    another seat's hand, or set aside face down); None where the game does not say, and
    the search treats every outcome as seen."""
    return registry.load(game).unseen_chance(seat)
