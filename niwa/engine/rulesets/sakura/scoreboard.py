"""The viewer's score chart, end-of-game table and card words for Sakura (sakura.md §7-§9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from niwa.engine.api import JSON, State
from niwa.engine.rulesets.sakura.rules import GARDEN_TEXT, PAINTER_TEXT
from niwa.engine.scoreboard import table

#: A card's two actions in words (the garden step, then the painter step).
GLOSSARY: Final[Mapping[str, str]] = {**GARDEN_TEXT, **PAINTER_TEXT}


def score_now(view: Mapping[str, Any]) -> list[float]:
    """Tokens so far, seats only (the court painter's come after them)."""
    return [float(t) for t in view["tokens"][: view["players"]]]


def round_ends(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A round is one card played by every seat (§6): the round counter moved on from
    a round that was played (it goes from 0 to 1 when the set-up deal is done)."""
    return bool(after["round"] > before["round"] >= 1)


def breakdown(state: State) -> dict[str, JSON]:
    view = state.observe(None)
    players = int(view["players"])
    painters: list[int] = view["painters"]
    spaces = painters[:players]
    rows: list[tuple[str, list[JSON]]] = [
        ("tokens", [int(t) for t in score_now(view)]),
        ("painter's space (0: the gate)", list(spaces)),
    ]
    rule = "Most tokens wins; a tie goes to the tied painter nearest the Emperor, the one " \
        "furthest along the path; painters still tied share the place (§8)."
    return table(rows, state.result(), rule, ("painter's space", spaces))
