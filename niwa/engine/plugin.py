"""Plugin hooks found by module name in the game's own package, for a game that keeps
each hook's code in a module of its own (the four built-in games do; docs/adding-a-game.md).

A game class that mixes :class:`PackagedHooks` in before :class:`~niwa.engine.api.Game`
answers each hook from its package (the package its class is defined in), and with
None, the fallback, where the module or the name is absent:

- ``viewer.js`` (package data): :meth:`renderer_asset`
- ``heuristic.py``: ``evaluate`` (:meth:`heuristic`), ``blind_to_chance``
- ``space.py``: ``enumerate_actions(players)`` (:meth:`action_space`)
- ``parts.py``: ``board_parts`` (:meth:`board_parts`)
- ``redeal.py``: ``unseen(seat)`` (:meth:`unseen_chance`), ``dealer(base, seat)``
  (:meth:`redealer`)
- ``scoreboard.py``: ``score_now`` (:meth:`score_now`), ``round_ends``
  (:meth:`round_ends`), ``breakdown`` (:meth:`score_breakdown`), ``GLOSSARY``
  (:meth:`glossary`)
- ``features.py``: ``encoder(players)`` (:meth:`feature_encoder`)
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import Any

from niwa.engine.api import (
    BoardParts,
    Breakdown,
    ChanceTest,
    Dealer,
    Enumeration,
    Evaluation,
    FeatureEncoder,
    RoundEnds,
    ScoreNow,
    State,
)


class PackagedHooks:
    """Answers the plugin hooks from modules beside the game class (see the module)."""

    def _package(self) -> str:
        return type(self).__module__.rpartition(".")[0]

    def _part(self, module: str, name: str) -> Any:
        """``name`` from ``<package>.<module>``, or None if either is absent. The module
        is imported on first use, so a game's search code costs nothing to a referee."""
        found: ModuleType | None = None
        full = f"{self._package()}.{module}"
        if importlib.util.find_spec(full) is not None:
            found = importlib.import_module(full)
        return getattr(found, name, None)

    def renderer_asset(self) -> Traversable | None:
        asset = files(self._package()) / "viewer.js"
        return asset if asset.is_file() else None

    def heuristic(self) -> Evaluation | None:
        evaluate: Evaluation | None = self._part("heuristic", "evaluate")
        return evaluate

    def blind_to_chance(self) -> ChanceTest | None:
        blind: ChanceTest | None = self._part("heuristic", "blind_to_chance")
        return blind

    def action_space(self, players: int) -> Enumeration | None:
        enumerate_actions = self._part("space", "enumerate_actions")
        return None if enumerate_actions is None else enumerate_actions(players)

    def unseen_chance(self, seat: int) -> ChanceTest | None:
        unseen = self._part("redeal", "unseen")
        return None if unseen is None else unseen(seat)

    def redealer(self, base: State, seat: int) -> Dealer | None:
        dealer = self._part("redeal", "dealer")
        return None if dealer is None else dealer(base, seat)

    def board_parts(self) -> BoardParts | None:
        parts: BoardParts | None = self._part("parts", "board_parts")
        return parts

    def score_now(self) -> ScoreNow | None:
        score: ScoreNow | None = self._part("scoreboard", "score_now")
        return score

    def round_ends(self) -> RoundEnds | None:
        ends: RoundEnds | None = self._part("scoreboard", "round_ends")
        return ends

    def score_breakdown(self) -> Breakdown | None:
        breakdown: Breakdown | None = self._part("scoreboard", "breakdown")
        return breakdown

    def glossary(self) -> Mapping[str, str] | None:
        words: Mapping[str, str] | None = self._part("scoreboard", "GLOSSARY")
        return words

    def feature_encoder(self, players: int) -> FeatureEncoder | None:
        encoder = self._part("features", "encoder")
        return None if encoder is None else encoder(players)
