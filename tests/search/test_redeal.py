"""niwa.bots.redeal: the cheaper determinizations agree with what the seat saw and deal the
hidden cards as the engine's own determinize does."""

from __future__ import annotations

import random

import pytest

from niwa import engine
from niwa.bots.redeal import dealer
from niwa.engine import State
from niwa.engine.rulesets.blossom.state import BlossomState
from niwa.engine.rulesets.sakura.state import SakuraState
from tests.search.helpers import random_game


@pytest.mark.parametrize("name", ["blossom", "sakura"])
def test_a_redealt_state_shows_each_seat_what_it_saw(name: str) -> None:
    game = engine.load(name)
    rng = random.Random(3)
    for k, state in enumerate(random_game(name, 3, seed=5)):
        if k % 3 or state.is_over():
            continue
        for seat in range(3):
            observation = state.observe(seat)
            deal = dealer(name, game.determinize(observation, seat, rng), seat)
            assert deal is not None
            for _ in range(3):
                assert deal(rng).observe(seat) == observation


def test_a_redealt_sakura_seat_may_play_exactly_the_cards_dealt_to_it() -> None:
    game = engine.load("sakura")
    rng = random.Random(4)
    state = next(s for s in random_game("sakura", 4, seed=2) if len(s.to_move()) == 4)
    deal = dealer("sakura", game.determinize(state.observe(0), 0, rng), 0)
    assert deal is not None
    for _ in range(5):
        world = deal(rng)
        assert isinstance(world, SakuraState)
        for seat in range(1, 4):
            played = sorted({a["card"] for a in world.legal_actions(seat)})
            assert played == sorted(set(world.hands[seat]))


def both_ways(name: str, state: State, count: int) -> tuple[list[State], list[State]]:
    """``count`` determinizations of seat 0's view by the engine, and as many re-dealt."""
    game = engine.load(name)
    observation = state.observe(0)
    rng = random.Random(1)
    worlds = [game.determinize(observation, 0, rng) for _ in range(count)]
    deal = dealer(name, worlds[0], 0)
    assert deal is not None
    return worlds, [deal(rng) for _ in range(count)]


def test_a_sakura_redeal_spreads_the_unseen_cards_like_the_engines_determinize() -> None:
    worlds, dealt = both_ways("sakura", next(random_game("sakura", 3, seed=6)), 2000)

    def share(states: list[State], card: int) -> float:
        return sum(card in s.hands[1] for s in states if isinstance(s, SakuraState)) / 2000

    unseen = sorted({c for w in worlds if isinstance(w, SakuraState) for c in w.hands[1]})
    assert len(unseen) > 5
    for card in unseen:
        assert abs(share(worlds, card) - share(dealt, card)) < 0.05


def test_a_blossom_redeal_spreads_the_hidden_cards_like_the_engines_determinize() -> None:
    # Seat 1 holds cards in hand and face down, so which goes where is sampled too.
    state = next(s for s in random_game("blossom", 3, seed=8)
                 if isinstance(s, BlossomState) and sum(s.hands[1]) > 1 and sum(s.downs[1]))
    worlds, dealt = both_ways("blossom", state, 3000)

    def hand_means(states: list[State]) -> list[float]:
        hands = [s.hands[1] for s in states if isinstance(s, BlossomState)]
        return [sum(h[k] for h in hands) / len(states) for k in range(6)]

    for a, b in zip(hand_means(worlds), hand_means(dealt), strict=True):
        assert abs(a - b) < 0.08


def test_a_game_without_a_cheaper_deal_has_none() -> None:
    state = engine.load("miyabi").new_game(3, {})
    assert dealer("miyabi", state, 0) is None
