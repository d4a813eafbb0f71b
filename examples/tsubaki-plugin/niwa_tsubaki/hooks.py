"""Tsubaki's optional plug-in hooks, all in one place so the wiring can follow the
hook signatures on Game (branch ``plugin``: renderer_asset, heuristic, action_space,
blind_to_chance, unseen_chance; typed actions are the convention of ``actions.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable

from niwa.engine import CHANCE, Action, State

from niwa_tsubaki import cards, heuristic
from niwa_tsubaki.rules import MAX_HAND
from niwa_tsubaki.state import TsubakiState


def renderer_asset() -> Traversable:
    """The replay viewer's renderer, package data beside this module."""
    return files(__package__) / "viewer.js"


def evaluation() -> Callable[[State], list[float]]:
    return heuristic.evaluate


def blind_to_chance(state: State) -> bool:
    """The only chance is the deal, and :func:`heuristic.evaluate` reads no hand before
    the bids: a pending deal never changes its value."""
    return True


def action_space(players: int) -> tuple[Sequence[Action], Sequence[Action]]:
    """Every bid any hand size allows, every card to play, every card chance deals."""
    acts: list[Action] = [{"bid": n} for n in range(MAX_HAND + 1)]
    acts += [{"card": c} for c in cards.DECK]
    return acts, [{"card": c} for c in cards.DECK]


def unseen_chance(seat: int) -> Callable[[State], bool]:
    """A card dealt to another hand is one ``seat`` never sees; the trump turn-up is."""

    def unseen(state: State) -> bool:
        if not isinstance(state, TsubakiState) or state.to_move() != (CHANCE,):
            return False
        if state.dealt() == state.players * state.hand_size:
            return False  # the next card is turned face up (§3)
        return (state.dealer + 1 + state.dealt()) % state.players != seat

    return unseen
