"""The Bonsai :class:`engine.Game`: info and options; new games are set up by
:meth:`BonsaiState.set_up`, snapshots read by codec.py, observations by views.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, Game, GameInfo, Option, Rng, State
from niwa.engine.plugin import PackagedHooks
from niwa.engine.rulesets.bonsai import views
from niwa.engine.rulesets.bonsai.rules import OPTION_DEFAULTS, SOLO_LEVELS, SOLO_SCENARIOS, VERSION
from niwa.engine.rulesets.bonsai.state import BonsaiState

OPTIONS = (
    Option(
        "useGoals",
        "bool",
        OPTION_DEFAULTS["useGoals"],
        "play with goal tiles (bonsai.md §4.2); compulsory in solo",
    ),
    Option(
        "tokonoma",
        "bool",
        OPTION_DEFAULTS["tokonoma"],
        "Tokonoma variant: all Parchments in the top half of the deck (bonsai.md §9)",
    ),
    Option(
        "allowPotFlip",
        "bool",
        OPTION_DEFAULTS["allowPotFlip"],
        "a player may mirror the pot before the first tile (BGA only, bonsai.md §6.7)",
    ),
    Option(
        "soloScenario",
        "choice",
        OPTION_DEFAULTS["soloScenario"],
        "solo scenario: none, or the Emperor challenge with two bonsai (bonsai.md §8.1)",
        choices=SOLO_SCENARIOS,
    ),
    Option(
        "soloLevel",
        "choice",
        OPTION_DEFAULTS["soloLevel"],
        "solo difficulty: points needed to win (bonsai.md §8)",
        choices=tuple(SOLO_LEVELS),
    ),
)


class BonsaiGame(PackagedHooks, Game):
    """Its plugin hooks are the modules beside this one (niwa.engine.plugin)."""

    info = GameInfo(
        name="bonsai",
        version=VERSION,
        min_players=1,
        max_players=4,
        simultaneous=False,
        chance=True,
        hidden_information=False,
        options=OPTIONS,
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        return BonsaiState.set_up(players, self.info.validate(players, options))

    def from_json(self, data: Mapping[str, JSON]) -> State:
        return BonsaiState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> State:
        # Nothing is hidden beyond the deck order, which is chance (views docstring).
        return views.determinize(observation, BonsaiState)
