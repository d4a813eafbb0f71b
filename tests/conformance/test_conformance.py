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


def _option_variants() -> list[tuple[str, int, str, object]]:
    """Each non-default value of every bool or choice option, at the smallest and the
    largest player count (int options are covered by each game's own tests)."""
    out = []
    for name in engine.games():
        info = engine.load(name).info
        for option in info.options:
            if option.kind == "bool":
                values: list[object] = [not option.default]
            elif option.kind == "choice":
                values = [c for c in option.choices if c != option.default]
            else:
                continue
            for value in values:
                for players in sorted({info.min_players, info.max_players}):
                    out.append((name, players, option.name, value))
    return out


@pytest.mark.parametrize(
    ("name", "players", "option", "value"),
    _option_variants(),
    ids=[f"{n}-{p}p-{o}={v}" for n, p, o, v in _option_variants()],
)
def test_contract_holds_with_each_option(
    name: str, players: int, option: str, value: object
) -> None:
    game = engine.load(name)
    options = {option: value}
    for step, _ in enumerate(checks.playout(game, players, seed=3, options=options)):
        assert step < 20_000
    checks.check_round_trip_every_step(game, players, 3, options=options)
    # every third step, one sample: the full check runs on the default options above
    checks.check_no_leak(game, players, 3, every=3, samples=1, options=options)
