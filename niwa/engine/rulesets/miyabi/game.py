"""The Miyabi ``Game``: info and option schema, new games (set up by the state's own
``start_round``), snapshots (codec.py) and determinize (views.py)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from niwa.engine.api import JSON, Game, GameInfo, Rng
from niwa.engine.plugin import PackagedHooks
from niwa.engine.rulesets.miyabi import views
from niwa.engine.rulesets.miyabi.rules import OPTIONS, VERSION, Rules, rules_for
from niwa.engine.rulesets.miyabi.state import MiyabiState

INFO = GameInfo(
    name="miyabi",
    version=VERSION,
    min_players=2,
    max_players=4,
    simultaneous=False,
    chance=True,
    hidden_information=False,
    options=OPTIONS,
)


class MiyabiGame(PackagedHooks, Game):
    """Its plugin hooks are the modules beside this one (niwa.engine.plugin)."""

    info = INFO

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> MiyabiState:
        """Round 1 with its tiles still to lay out (chance) (miyabi.md §4, §5.1)."""
        # no options: the defaults' Rules, made once per player count
        rules = _default_rules(players) if not options else rules_for(
            players, self.info.validate(players, options)
        )
        state = MiyabiState(rules, players)
        state.start_round()
        return state

    def from_json(self, data: Mapping[str, JSON]) -> MiyabiState:
        return MiyabiState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> MiyabiState:
        """Nothing is hidden: the box's content follows from the known tile set and the
        face-up draws, so the observation rebuilds the one true state; ``rng`` is unused."""
        return views.determinize(observation, MiyabiState)


@cache
def _default_rules(players: int) -> Rules:
    return rules_for(players, INFO.validate(players, None))
