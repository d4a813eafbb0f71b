"""Blossom draws a deck card without listing the outcomes (state.sample_chance): the
card must be the one the generic walk over ``chance_outcomes`` draws from the same
generator, or replays and seeded games would change."""

from __future__ import annotations

import itertools
import random

from niwa.engine.api import State
from niwa.engine.registry import load

from .table import table


class Fixed:
    """A generator whose ``random()`` is always ``value``: the walk's edges."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


def test_a_deck_draw_is_the_card_the_generic_walk_draws_from_the_same_generator() -> None:
    s = table(2)
    s.queue = [0]  # a card owed to seat 0's hand
    draws = random.Random(5)
    for deck in itertools.product(range(3), repeat=6):
        if not any(deck):
            continue
        s.deck = list(deck)
        for value in (0.0, 1 - 2**-53, 0.5, draws.random(), draws.random()):
            assert s.sample_chance(Fixed(value)) == State.sample_chance(s, Fixed(value)), deck


def test_seeded_games_draw_the_same_cards_as_the_generic_walk() -> None:
    moves = random.Random(11)
    drawn = 0
    while drawn < 300:  # about ten games, each from the deal on
        s = load("blossom").new_game(3)
        while not s.is_over():
            seat = s.to_move()[0]
            if s.queue:  # the dealer or a card
                seed = moves.random()
                outcome = s.sample_chance(random.Random(seed))
                assert outcome == State.sample_chance(s, random.Random(seed))
                s.apply({seat: outcome})
                drawn += 1
            else:
                s.apply({seat: moves.choice(s.legal_actions(seat))})
