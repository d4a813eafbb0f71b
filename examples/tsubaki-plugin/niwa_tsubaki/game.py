"""Tsubaki's GameInfo, options and factories, and the optional plug-in hooks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib.resources.abc import Traversable
from typing import Any

from niwa.engine import JSON, Action, Game, GameInfo, Option, Rng, State

from niwa_tsubaki import hooks, rules, views
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

    # -- optional plug-in hooks (names as on branch ``plugin``; see hooks.py) ----------

    def renderer_asset(self) -> Traversable | None:
        return hooks.renderer_asset()

    def heuristic(self) -> Callable[[State], list[float]] | None:
        return hooks.evaluation()

    def blind_to_chance(self) -> Callable[[State], bool] | None:
        return hooks.blind_to_chance

    def action_space(self, players: int) -> tuple[Sequence[Action], Sequence[Action]] | None:
        return hooks.action_space(players)

    def unseen_chance(self, seat: int) -> Callable[[State], bool] | None:
        return hooks.unseen_chance(seat)
