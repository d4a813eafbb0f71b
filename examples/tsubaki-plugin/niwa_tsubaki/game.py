"""Tsubaki's GameInfo, options and factories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine import JSON, Game, GameInfo, Option, Rng, State
from niwa_tsubaki import rules, views
from niwa_tsubaki.state import TsubakiState


class Tsubaki(Game):
    info = GameInfo(
        name=rules.NAME,
        version=rules.VERSION,
        min_players=rules.MIN_PLAYERS,
        max_players=rules.MAX_PLAYERS,
        simultaneous=False,
        chance=True,
        hidden_information=True,
        options=(
            Option("hand", "int", 4, "cards dealt in the first round; one fewer each"
                   " round after (tsubaki.md §2)", minimum=1, maximum=rules.MAX_HAND),
            Option("hook", "bool", True, "the dealer may not make the bids add up to"
                   " the cards dealt (tsubaki.md §4)"),
        ),
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        opts = self.info.validate(players, options)
        return TsubakiState.fresh(players, opts["hand"], opts["hook"])

    def from_json(self, data: Mapping[str, JSON]) -> State:
        return TsubakiState(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> State:
        return views.determinize(observation, seat, rng)
