"""Every registered game, every player count, every promise of the engine contract."""

from __future__ import annotations

import pytest

import engine
from tests.conformance import checks

CASES = [
    (name, players)
    for name in engine.games()
    for players in range(engine.load(name).info.min_players, engine.load(name).info.max_players + 1)
]
IDS = [f"{name}-{players}p" for name, players in CASES]


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", range(40))
def test_random_play_terminates_with_consistent_result(name: str, players: int, seed: int) -> None:
    checks.check_terminates_with_consistent_result(engine.load(name), players, seed)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@pytest.mark.parametrize(
    "check", [c for c in checks.ALL_CHECKS if c != "terminates_with_consistent_result"]
)
@pytest.mark.parametrize("seed", [1, 2])
def test_contract(name: str, players: int, check: str, seed: int) -> None:
    checks.ALL_CHECKS[check](engine.load(name), players, seed)


def test_every_registered_game_has_a_conformance_case() -> None:
    assert engine.games(), "no game is registered (is niwa installed?)"
    assert {name for name, _ in CASES} == set(engine.games())
