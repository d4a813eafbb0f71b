"""Chance the searching seat cannot see: one node for all its outcomes, and leaf values
that do not wait for outcomes the evaluation cannot see."""

from __future__ import annotations

import random
from typing import Any

import pytest

import niwa.bots.search
from niwa import engine
from niwa.bots import heuristics, redeal
from niwa.bots.search import ISMCTS, SearchLimits
from niwa.engine import CHANCE, State
from niwa.engine.rulesets.blossom.state import GARDEN, REMOVE, BlossomState
from niwa.engine.rulesets.sakura.state import COURT, DRAW, SakuraState
from tests.search.helpers import random_game


def pending_chance(name: str, players: int, seed: int, wanted: Any) -> State:
    """The first state of a seeded random game whose pending chance ``wanted`` accepts."""
    state = engine.load(name).new_game(players, {})
    rng = random.Random(seed)
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            if wanted(state):
                return state
            state.apply({CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
    raise AssertionError("no such chance in this game")


def test_a_sakura_draw_is_unseen_by_every_seat_but_the_drawer() -> None:
    state = pending_chance("sakura", 3, 1, lambda s: s.phase == DRAW)
    assert isinstance(state, SakuraState)
    drawer = state.draws[0]
    for seat in range(3):
        unseen = redeal.unseen_chance("sakura", seat)
        assert unseen is not None
        assert unseen(state) is (seat != drawer)


def test_the_sakura_court_card_is_seen_by_both_seats() -> None:
    state = pending_chance("sakura", 2, 1, lambda s: s.phase == COURT)
    for seat in (0, 1):
        unseen = redeal.unseen_chance("sakura", seat)
        assert unseen is not None and not unseen(state)


@pytest.mark.parametrize(("target", "unseen_by"), [(1, {0, 2}), (REMOVE, {0, 1, 2}),
                                                    (GARDEN, set())])
def test_a_blossom_card_is_unseen_unless_it_goes_to_the_seat_or_the_garden(
    target: object, unseen_by: set[int]
) -> None:
    state = pending_chance("blossom", 3, 1, lambda s: bool(s.queue))
    assert isinstance(state, BlossomState)
    state.queue[0] = target  # type: ignore[call-overload]
    tests = [redeal.unseen_chance("blossom", seat) for seat in range(3)]
    assert {seat for seat, t in enumerate(tests) if t is not None and t(state)} == unseen_by


def test_games_without_hidden_cards_see_every_outcome() -> None:
    assert redeal.unseen_chance("miyabi", 0) is None
    assert redeal.unseen_chance("bonsai", 0) is None


def chance_children(name: str, players: int, monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The chance edges of every node a search from a mid-game decision made."""
    made: list[Any] = []

    class Recorded(niwa.bots.search._Node):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(niwa.bots.search, "_Node", Recorded)
    state = next(s for k, s in enumerate(random_game(name, players, seed=4)) if k >= 6)
    seat = state.to_move()[0]
    search = ISMCTS(engine.load(name), heuristics.for_game(name), rng=random.Random(2))
    search.choose(state.observe(seat), seat, state.legal_actions(seat),
                  SearchLimits(iterations=600))
    return [{k for k in node.children if k.startswith("c")} for node in made if node.children]


@pytest.mark.parametrize(("name", "players"), [("sakura", 3), ("blossom", 2)])
def test_outcomes_the_searching_seat_cannot_see_lead_to_one_node(
    name: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    edges = [keys for keys in chance_children(name, players, monkeypatch) if keys]
    merged = [keys for keys in edges if "c?" in keys]
    assert merged, "the search met no unseen outcome"
    assert all(keys == {"c?"} for keys in merged)  # never beside a seen outcome
    assert any(len(keys) > 1 for keys in edges)  # seen outcomes still branch


def test_a_sakura_leaf_is_valued_without_drawing_the_cards_its_value_cannot_see() -> None:
    state = pending_chance("sakura", 4, 2, lambda s: s.phase == DRAW)
    search = ISMCTS(engine.load("sakura"), heuristics.for_game("sakura"), rng=random.Random(1))
    leaf = state.clone()
    values = search._value(leaf)
    assert leaf.to_json() == state.to_json()  # nothing drawn
    drawn = state.clone()
    while drawn.to_move() == (CHANCE,):
        drawn.apply({CHANCE: engine.sample_chance(drawn, random.Random(9))})
    assert values == heuristics.for_game("sakura")(drawn)  # type: ignore[misc]


def test_the_sakura_court_card_is_drawn_before_a_leaf_is_valued() -> None:
    state = pending_chance("sakura", 2, 1, lambda s: s.phase == COURT)
    search = ISMCTS(engine.load("sakura"), heuristics.for_game("sakura"), rng=random.Random(1))
    leaf = state.clone()
    search._value(leaf)
    assert isinstance(leaf, SakuraState)
    assert leaf.phase != COURT  # revealed and resolved (the draws after it may wait)


def test_only_a_games_own_evaluation_is_trusted_to_ignore_chance() -> None:
    own = heuristics.for_game("sakura")
    assert heuristics.blind_to_chance("sakura", own) is not None
    assert heuristics.blind_to_chance("sakura", lambda state: [0.5, 0.5]) is None
    assert heuristics.blind_to_chance("blossom", heuristics.for_game("blossom")) is None
    assert heuristics.blind_to_chance("sakura", None) is None
