"""Every game spells its actions as a TypedDict union and its phases as a StrEnum
(docs/adding-a-game.md, "Typed actions and phases"): what random games list and reach
fits the types its ``actions.py`` declares, at the fewest and the most players."""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any, Literal, NotRequired, get_args, get_origin, get_type_hints

import pytest

from niwa import engine
from niwa.engine.api import CHANCE, State

GAMES = ["blossom", "bonsai", "miyabi", "sakura"]
CASES = [
    (game, players)
    for game in GAMES
    for players in sorted({engine.load(game).info.min_players, engine.load(game).info.max_players})
]


def _actions_module(game: str) -> ModuleType:
    return importlib.import_module(f"niwa.engine.rulesets.{game}.actions")


def _fits(value: Any, union: Any) -> bool:
    """Whether ``value`` is a dict one member of the TypedDict ``union`` describes."""
    if type(value) is not dict:
        return False
    for td in get_args(union) or (union,):
        # __required_keys__ misses NotRequired under postponed annotations (3.11)
        hints = get_type_hints(td, include_extras=True)
        required = {k for k, t in hints.items() if get_origin(t) is not NotRequired}
        if not required <= set(value) <= set(hints):
            continue
        if all(_field_fits(value[k], hints[k]) for k in value):
            return True
    return False


def _field_fits(value: Any, hint: Any) -> bool:
    """A field against its hint: a Literal's values, else the (outer) class."""
    if get_origin(hint) is NotRequired:
        [hint] = get_args(hint)
    if get_origin(hint) is Literal:
        return value in get_args(hint) and type(value) in {type(a) for a in get_args(hint)}
    return isinstance(value, get_origin(hint) or hint)


def _random_game(game: str, players: int, seed: int) -> list[State]:
    """Each state of a seeded random game, the last one over."""
    rng = random.Random(seed)
    state = engine.load(game).new_game(players)
    seen: list[State] = []
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            joint = {CHANCE: state.sample_chance(rng)}
        else:
            joint = {s: rng.choice(state.legal_actions(s)) for s in seats}
        seen.append(state.clone())
        state.apply(joint)
    seen.append(state)
    return seen


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_listed_action_fits_the_games_action_union(game: str, players: int) -> None:
    union = getattr(_actions_module(game), f"{game.capitalize()}Action")
    listed = [
        a
        for state in _random_game(game, players, 1)
        for s in state.to_move()
        if s != CHANCE
        for a in state.legal_actions(s)
    ]
    assert listed
    assert [a for a in listed if not _fits(a, union)] == []


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_chance_outcome_fits_the_games_chance_union(game: str, players: int) -> None:
    union = getattr(_actions_module(game), f"{game.capitalize()}Chance")
    outcomes = [a for state in _random_game(game, players, 2) for a, _p in state.chance_outcomes()]
    assert outcomes
    assert [a for a in outcomes if not _fits(a, union)] == []


def _phase_of(state: State) -> object:
    """``state.phase``: every built-in game's state has one, the State API does not."""
    phase: object = getattr(state, "phase")  # noqa: B009 - not on the State type
    return phase


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_phase_reached_or_restored_is_a_member_of_the_games_phase_enum(
    game: str, players: int
) -> None:
    phase = _actions_module(game).Phase
    rules = engine.load(game)
    states = _random_game(game, players, 3)
    reached = [_phase_of(s) for s in states]
    restored = [_phase_of(rules.from_json(s.to_json())) for s in states]
    assert len(set(reached)) > 1
    assert [p for p in reached + restored if not isinstance(p, phase)] == []
