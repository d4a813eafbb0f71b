"""The Bonsai :class:`engine.Game`: info, options, set-up and rebuilding states."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import JSON, Game, GameInfo, Option, Rng, State

from . import codec
from .rules import (
    CARD_KINDS,
    EMPEROR_GOAL_LEVEL,
    GOAL_ORDER,
    GOALS,
    OPTION_DEFAULTS,
    SOLO_LEVELS,
    SOLO_SCENARIOS,
    SOLO_STARTING_TILES,
    STARTING_TILES,
    deck_for,
)
from .seat import new_seat
from .state import BonsaiState

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


class BonsaiGame(Game):
    info = GameInfo(
        name="bonsai",
        version=codec.VERSION,
        min_players=1,
        max_players=4,
        simultaneous=False,
        chance=True,
        hidden_information=False,
        options=OPTIONS,
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        opts = self.info.validate(players, options)
        # Goals are compulsory in solo (bonsai.md §4.2, §8): useGoals only applies to
        # 2-4 players, as soloLevel and soloScenario only apply to 1 (all kept valid
        # everywhere so one option set can serve every player count).
        use_goals = opts["useGoals"] or players == 1
        s = BonsaiState(players, opts)
        deck = deck_for(players)
        if opts["tokonoma"]:
            # Parchments go on top with the smaller half of the rest (bonsai.md §9).
            s.top_parchments = {k: n for k, n in deck.items() if CARD_KINDS[k].type == "parchment"}
            s.pool = {k: n for k, n in deck.items() if CARD_KINDS[k].type != "parchment"}
            s.top_others = sum(s.pool.values()) // 2
        else:
            s.pool = deck
        if s.emperor:
            # Two pots and every intermediate goal, no colour draw (bonsai.md §8.1).
            s.seats = [new_seat(SOLO_STARTING_TILES, bonsai=2)]
            s.goals_open = [g for g in GOAL_ORDER if GOALS[g].level == EMPEROR_GOAL_LEVEL]
            s.goal_colours = [GOALS[g].colour for g in s.goals_open]
            s.phase = "reveal"
            return s
        s.seats = [
            new_seat(SOLO_STARTING_TILES if players == 1 else STARTING_TILES[seat])
            for seat in range(players)
        ]
        s.phase = "goal_setup" if use_goals else "reveal"
        return s

    def from_json(self, data: Mapping[str, JSON]) -> State:
        return codec.state_from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> State:
        # Nothing is hidden beyond the deck order, which is chance (codec docstring).
        return codec.from_observation(observation)
