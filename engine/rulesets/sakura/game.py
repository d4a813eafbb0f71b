"""The Sakura game object: info and options, new games; snapshots (codec.py) and
determinization (views.py) are reached from here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.api import JSON, Game, GameInfo, Rng
from engine.rulesets.sakura import codec, rules, views
from engine.rulesets.sakura.state import SakuraState


class SakuraGame(Game):
    info = GameInfo(
        name="sakura",
        version=rules.VERSION,
        min_players=2,
        max_players=6,
        simultaneous=True,
        chance=True,
        hidden_information=True,
        options=rules.config().options,
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> SakuraState:
        return SakuraState.new(players, self.info.validate(players, options))

    def from_json(self, data: Mapping[str, JSON]) -> SakuraState:
        return SakuraState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> SakuraState:
        return codec.decode(views.determinized_fields(observation, seat, rng), SakuraState)
