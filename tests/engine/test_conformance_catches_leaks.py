"""The conformance suite must fail for a game that shows a hand card to another seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import engine
from engine.rulesets.blossom import BlossomGame, BlossomState
from tests.conformance import checks


class LeakyState(BlossomState):
    """Blossom, except every seat also sees the next seat's hand."""

    def observe(self, seat: int | None) -> dict[str, Any]:
        obs = super().observe(seat)
        if seat is not None:
            obs["peek"] = self.to_json()["state"]["hands"][(seat + 1) % self.n]
        return obs

    def clone(self) -> LeakyState:
        return LeakyState.from_json(self.to_json())


class LeakyGame(BlossomGame):
    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> LeakyState:
        return LeakyState.from_json(super().new_game(players, options).to_json())

    def from_json(self, data: Mapping[str, Any]) -> LeakyState:
        return LeakyState.from_json(data)

    def determinize(self, observation: Mapping[str, Any], seat: int, rng: Any) -> LeakyState:
        return LeakyState.from_json(super().determinize(observation, seat, rng).to_json())


def test_a_planted_hand_leak_fails_the_no_leak_check() -> None:
    with pytest.raises(AssertionError, match="cannot see"):
        checks.check_no_leak(LeakyGame(), players=3, seed=1)


def test_the_unmodified_game_passes_the_same_check() -> None:
    checks.check_no_leak(engine.load("blossom"), players=3, seed=1)
