"""The leak checks fail for games that show a seat what it cannot see, each where it
says it looks: check_no_leak in observations, check_hidden_views_agree in observations,
render texts and the finished state too; and the feature encoder check, for groups
that name features the row does not have."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from niwa import engine
from niwa.engine.rulesets.blossom import BlossomGame, BlossomState
from niwa.engine.rulesets.miyabi import MiyabiGame
from niwa.engine.testing import checks


def _next_hand(state: BlossomState, seat: int) -> object:
    return state.to_json()["state"]["hands"][(seat + 1) % state.n]


class LeakyState(BlossomState):
    """Blossom, except every seat also sees the next seat's hand."""

    def observe(self, seat: int | None) -> dict[str, Any]:
        obs = super().observe(seat)
        if seat is not None:
            obs["peek"] = _next_hand(self, seat)
        return obs

    def clone(self) -> LeakyState:
        return type(self).from_json(self.to_json())


class LeakyAtTheEndState(LeakyState):
    """Blossom, except the next seat's hand shows once the game is over."""

    def observe(self, seat: int | None) -> dict[str, Any]:
        obs = BlossomState.observe(self, seat)
        if seat is not None and self.is_over():
            obs["peek"] = _next_hand(self, seat)
        return obs


class LeakyRenderState(BlossomState):
    """Blossom whose observations are right but whose text picture shows the next hand."""

    def render(self, seat: int | None = None) -> str:
        text = super().render(seat)
        return text if seat is None else f"{text}\nnext hand: {_next_hand(self, seat)}"

    def clone(self) -> LeakyRenderState:
        return LeakyRenderState.from_json(self.to_json())


class LeakyGame(BlossomGame):
    """Blossom built from ``state_type`` (one of the leaky states above)."""

    def __init__(self, state_type: type[BlossomState] = LeakyState) -> None:
        self.state_type = state_type

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> BlossomState:
        return self.state_type.from_json(super().new_game(players, options).to_json())

    def from_json(self, data: Mapping[str, Any]) -> BlossomState:
        return self.state_type.from_json(data)

    def determinize(self, observation: Mapping[str, Any], seat: int, rng: Any) -> BlossomState:
        return self.from_json(super().determinize(observation, seat, rng).to_json())


def test_a_planted_hand_leak_fails_the_no_leak_check() -> None:
    with pytest.raises(AssertionError, match="cannot see"):
        checks.check_no_leak(LeakyGame(), players=3, seed=1)


def test_a_planted_hand_leak_fails_the_hidden_views_check() -> None:
    with pytest.raises(AssertionError, match=r"observe\(\d\) differs from the true state"):
        checks.check_hidden_views_agree(LeakyGame(), players=3, seed=1)


def test_a_leak_shown_only_in_the_finished_game_fails_both_checks() -> None:
    game = LeakyGame(LeakyAtTheEndState)
    with pytest.raises(AssertionError, match="cannot see"):
        checks.check_no_leak(game, players=3, seed=1)
    with pytest.raises(AssertionError, match="differs from the true state"):
        checks.check_hidden_views_agree(game, players=3, seed=1)


def test_a_leak_in_render_passes_no_leak_but_fails_the_hidden_views_check() -> None:
    game = LeakyGame(LeakyRenderState)
    checks.check_no_leak(game, players=3, seed=1)  # it looks at observations only
    with pytest.raises(AssertionError, match=r"render\(\d\) differs from the true state"):
        checks.check_hidden_views_agree(game, players=3, seed=1)


def test_a_hidden_information_game_whose_worlds_never_differ_fails() -> None:
    # miyabi hides nothing: claiming hidden information means the samples must vary
    game = MiyabiGame()
    game.info = dataclasses.replace(game.info, hidden_information=True)
    with pytest.raises(AssertionError, match="determinize gave the same state"):
        checks.check_hidden_views_agree(game, players=2, seed=1)


@pytest.mark.parametrize("check", [checks.check_no_leak, checks.check_hidden_views_agree])
def test_the_unmodified_game_passes_the_same_check(check: checks.Check) -> None:
    check(engine.load("blossom"), 3, 1)



def test_a_feature_group_reaching_past_the_row_fails_the_encoder_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = engine.load("miyabi")
    encoder = game.feature_encoder(2)
    assert encoder is not None
    stray = dataclasses.replace(encoder, groups={"cells": ((10, encoder.size + 1),)})
    monkeypatch.setattr(game, "feature_encoder", lambda players: stray)
    with pytest.raises(AssertionError, match=r"group 'cells' has the span \(10, 1271\)"):
        checks.check_feature_encoder(game, players=2, seed=1)
