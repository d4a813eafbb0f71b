"""The Sakura game object: info and options, new games; snapshots (codec.py) and
determinization (views.py) are reached from here."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from niwa.engine.api import JSON, Game, GameInfo, Rng
from niwa.engine.plugin import PackagedHooks
from niwa.engine.rulesets.sakura import codec, rules, views
from niwa.engine.rulesets.sakura.state import SakuraState


class SakuraGame(PackagedHooks, Game):
    """Its plugin hooks are the modules beside this one (niwa.engine.plugin)."""

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
        # no options: the defaults, validated once per player count (a state never
        # changes its options; validating them again was 4 % of a 6-player playout)
        validated = _defaults(players) if not options else self.info.validate(players, options)
        return SakuraState.new(players, validated)

    def from_json(self, data: Mapping[str, JSON]) -> SakuraState:
        return SakuraState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> SakuraState:
        return codec.decode(views.determinized_fields(observation, seat, rng), SakuraState)


@cache
def _defaults(players: int) -> dict[str, Any]:
    return SakuraGame.info.validate(players, None)
