"""The Blossom game object: info and options, new games; snapshots (codec.py) and
determinization (views.py) are reached from here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, Game, GameInfo, Option, OptionError, Rng
from niwa.engine.plugin import PackagedHooks
from niwa.engine.rulesets.blossom import codec, views
from niwa.engine.rulesets.blossom.rules import VERSION
from niwa.engine.rulesets.blossom.state import BlossomState

INFO = GameInfo(
    name="blossom",
    version=VERSION,
    min_players=2,
    max_players=4,
    simultaneous=False,
    chance=True,
    hidden_information=True,
    options=(
        Option(
            "mulligan",
            "bool",
            False,
            "optional rule: after the hands are dealt each player may return cards once "
            "(blossom.md §9)",
        ),
        Option(
            "cherryOverflowSource",
            "choice",
            "deck",
            "where the cherry's 0-point draws come from with 3+ cards in hand "
            "(blossom.md §6, DECIDED default: deck)",
            choices=("deck", "garden"),
        ),
        Option(
            "dealer",
            "int",
            -1,
            "the seat that deals and starts; -1 draws it at random (blossom.md §4 PROPOSED)",
            minimum=-1,
            maximum=3,
        ),
    ),
)


class BlossomGame(PackagedHooks, Game):
    """Its plugin hooks are the modules beside this one (niwa.engine.plugin)."""

    info = INFO

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> BlossomState:
        opts = self.info.validate(players, options)
        if opts["dealer"] >= players:
            raise OptionError(f"option 'dealer' must be a seat below {players} (or -1: random)")
        return BlossomState(players, opts)

    def from_json(self, data: Mapping[str, JSON]) -> BlossomState:
        return BlossomState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> BlossomState:
        return codec.decode(views.determinized_fields(observation, seat, rng), BlossomState)
