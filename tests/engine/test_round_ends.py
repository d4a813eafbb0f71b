"""Each game's ``round_ends`` hook (the balance figures' unit of play), on random
playouts: every round of the rules is one round here, never a decision more or less."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from niwa import engine
from niwa.engine.testing import playout

View = Mapping[str, Any]

PLAYERS = (2, 3, 4)


def _steps(game: str, players: int, seed: int) -> Iterator[tuple[View, View]]:
    """(spectator view before, view after) for every step of a random game."""
    g = engine.load(game)
    before = None
    for state, _ in playout(g, players, seed):
        view = state.observe(None)
        if before is not None:
            yield before, view
        before = view
    # playout applied the last joint to the state it yielded: the finished game
    assert before is not None
    yield before, state.observe(None)


def _ends(game: str, players: int, seed: int) -> list[View]:
    ends = engine.load(game).round_ends()
    assert ends is not None
    return [after for before, after in _steps(game, players, seed) if ends(before, after)]


@pytest.mark.parametrize("players", PLAYERS)
def test_a_miyabi_game_ends_every_round_but_the_last_which_ends_the_game(players: int) -> None:
    ends = _ends("miyabi", players, seed=players)
    assert [view["round"] for view in ends] == list(range(2, ends[-1]["rounds"] + 1))


@pytest.mark.parametrize("players", PLAYERS)
def test_a_sakura_round_ends_when_its_round_counter_moves_on(players: int) -> None:
    ends = _ends("sakura", players, seed=players)
    assert [view["round"] for view in ends] == list(range(2, len(ends) + 2))


@pytest.mark.parametrize("players", PLAYERS)
def test_a_blossom_round_is_one_turn_of_every_seat(players: int) -> None:
    ends = _ends("blossom", players, seed=players)
    assert ends
    assert [view["turn"] for view in ends] == [players * k + 1 for k in range(1, len(ends) + 1)]


@pytest.mark.parametrize("players", PLAYERS)
def test_a_bonsai_round_ends_when_the_turn_comes_back_to_seat_0(players: int) -> None:
    ends = _ends("bonsai", players, seed=players)
    assert ends
    assert all(view["current"] == 0 for view in ends)
    # seat 0 gets the turn back after every players-th handover
    assert len(ends) == _handovers("bonsai", players, seed=players) // players


def test_a_solo_bonsai_game_has_a_round_per_turn() -> None:
    ends = _ends("bonsai", 1, seed=5)
    assert len(ends) > 1
    assert all(view["phase"] == "choose" and view["turn"]["action"] is None for view in ends)


def _handovers(game: str, players: int, seed: int) -> int:
    """How often the turn passed to another seat."""
    return sum(1 for before, after in _steps(game, players, seed)
               if before["current"] != after["current"])  # fmt: skip
