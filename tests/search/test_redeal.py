"""bots.redeal: Blossom's cheaper determinizations agree with what the seat saw and deal
the hidden cards as the engine's own determinize does."""

from __future__ import annotations

import random
from collections.abc import Iterator

import engine
from bots.redeal import dealer
from engine import CHANCE, State
from engine.rulesets.blossom.state import BlossomState


def decisions(players: int, seed: int) -> Iterator[State]:
    """Every decision point of one random Blossom game."""
    state = engine.load("blossom").new_game(players, {})
    rng = random.Random(seed)
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
            continue
        yield state
        state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})


def test_a_redealt_blossom_state_shows_each_seat_what_it_saw() -> None:
    game = engine.load("blossom")
    rng = random.Random(3)
    for k, state in enumerate(decisions(3, seed=5)):
        if k % 3:
            continue
        for seat in range(3):
            observation = state.observe(seat)
            deal = dealer("blossom", game.determinize(observation, seat, rng), seat)
            assert deal is not None
            for _ in range(3):
                assert deal(rng).observe(seat) == observation


def hand_means(states: list[BlossomState], seat: int) -> list[float]:
    return [sum(s.hands[seat][k] for s in states) / len(states) for k in range(6)]


def test_a_redeal_spreads_the_hidden_cards_like_the_engines_determinize() -> None:
    game = engine.load("blossom")
    # Seat 1 holds cards in hand and face down, so which goes where is sampled too.
    state = next(s for s in decisions(3, seed=8)
                 if isinstance(s, BlossomState) and sum(s.hands[1]) > 1 and sum(s.downs[1]))
    observation = state.observe(0)
    rng = random.Random(1)
    worlds = [game.determinize(observation, 0, rng) for _ in range(3000)]
    deal = dealer("blossom", worlds[0], 0)
    assert deal is not None
    dealt = [deal(rng) for _ in range(3000)]
    assert all(isinstance(w, BlossomState) for w in worlds + dealt)
    engine_means = hand_means(worlds, 1)  # type: ignore[arg-type]
    redeal_means = hand_means(dealt, 1)  # type: ignore[arg-type]
    for a, b in zip(engine_means, redeal_means, strict=True):
        assert abs(a - b) < 0.08


def test_a_game_without_a_cheaper_deal_has_none() -> None:
    game = engine.load("sakura")
    state = game.new_game(3, {})
    assert dealer("sakura", state, 0) is None
