"""Every plugin hook is optional: a game that answers none still gets readable moves,
an action space, a viewer renderer and searches, through the generic fallbacks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from niwa import engine
from niwa.adapters.features import GENERIC_VERSION, encode, encoder_for
from niwa.adapters.spaces import space_of
from niwa.engine import CHANCE, JSON, Action, Game, GameInfo, Result, Rng, State
from niwa.engine.plugin import PackagedHooks
from niwa.web.replay_view import renderer_url


class CountState(State):
    """A coin (1 or 2) is tossed, then the one seat adds 1 or the coin to its total."""

    def __init__(self, coin: int | None = None, total: int | None = None) -> None:
        self.coin, self.total = coin, total

    def to_move(self) -> tuple[int, ...]:
        return (CHANCE,) if self.coin is None else () if self.total is not None else (0,)

    def legal_actions(self, seat: int) -> list[Action]:
        return [{"add": 1}, {"add": self.coin}] if self.to_move() == (0,) and seat == 0 else []

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [({"coin": 1}, 0.5), ({"coin": 2}, 0.5)] if self.coin is None else []

    def apply(self, joint: Mapping[int, Action]) -> None:
        if self.coin is None:
            self.coin = joint[CHANCE]["coin"]
        else:
            self.total = joint[0]["add"]

    def observe(self, seat: int | None) -> dict[str, JSON]:
        return {"coin": self.coin, "total": self.total}

    def result(self) -> Result:
        return Result(scores=(float(self.total or 0),), places=(0,))

    def clone(self) -> CountState:
        return CountState(self.coin, self.total)

    def to_json(self) -> dict[str, JSON]:
        return self.observe(None)

    def render(self, seat: int | None = None) -> str:
        return f"coin {self.coin}, total {self.total}"


class CountGame(Game):
    info = GameInfo("count", "count@1", 1, 1, False, True, False)

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> CountState:
        return CountState()

    def from_json(self, data: Mapping[str, JSON]) -> CountState:
        return CountState(data["coin"], data["total"])

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> CountState:
        return self.from_json(observation)


class PackagedCountGame(PackagedHooks, CountGame):
    """Looks for hook modules beside this test module, where there are none."""


def test_a_move_without_a_description_reads_as_its_canonical_json() -> None:
    assert engine.describe_move(CountState(2), 0, {"add": 2}) == '{"add":2}'


def test_a_game_that_answers_no_hook_gets_none_from_every_one() -> None:
    for game in (CountGame(), PackagedCountGame()):
        state = game.new_game(1)
        assert [game.renderer_asset(), game.heuristic(), game.blind_to_chance(),
                game.action_space(1), game.unseen_chance(0), game.redealer(state, 0),
                game.board_parts(), game.score_now(), game.score_breakdown(),
                game.glossary(), game.feature_encoder(1), game.round_ends()] == [None] * 12


def test_a_game_without_an_action_space_gets_the_actions_random_playouts_reach() -> None:
    space = space_of(CountGame(), 1)
    assert list(space.actions.values) == [{"add": 1}, {"add": 2}]
    assert list(space.chance.values) == [{"coin": 1}, {"coin": 2}]


def test_a_game_without_an_encoder_gets_the_generic_hashed_one() -> None:
    encoder = encoder_for(PackagedCountGame(), 1, size=32)
    assert encoder.version == f"{GENERIC_VERSION}@32"
    row = np.zeros(encoder.size, np.float32)
    encoder.write(CountState(2).observe(0), row)
    assert np.array_equal(row, encode({"coin": 2, "total": None}, 32))


def test_a_game_without_a_renderer_is_drawn_by_the_generic_one() -> None:
    assert renderer_url(CountGame()) is None


def test_every_builtin_game_ships_its_renderer_at_its_own_url() -> None:
    for name in engine.games():
        assert renderer_url(engine.load(name)) == f"/static/games/{name}.js"
        asset = engine.load(name).renderer_asset()
        assert asset is not None and "export function draw" in asset.read_text()
