"""The viewer's score chart, end-of-game table and card and goal words for Bonsai
(bonsai.md §2.2, §4.1, §5), the words built from the rules data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from niwa.engine.api import JSON, State
from niwa.engine.rulesets.bonsai.rules import _CARDS, _GOALS
from niwa.engine.scoreboard import table


def _card(kind: str, card: Mapping[str, Any]) -> str:
    what = card["type"]
    if what == "tool":
        return f"Tool (capacity +{card['capacity']})"
    if what == "growth":
        return f"Growth: +1 {card['tile']} per Cultivate"
    if what == "master":
        tiles = " + ".join("any tile" if t == "any" else t for t in card["tiles"])
        return f"Master: take {tiles}"
    if what == "helper":
        return f"Helper: place any tile + 1 {card['tile']}"
    if what == "parchment":
        per = card["per"]
        unit = f"{per} tile" if per in ("wood", "leaf", "flower", "fruit") else f"{per} card"
        return f"Parchment: {card['points']} per {unit}"
    return kind


def _goal(goal: Mapping[str, Any]) -> str:
    return f"{goal['style']} ({goal['colour']} {goal['level']}, {goal['points']} points)"


GLOSSARY: Final[Mapping[str, str]] = {
    **{kind: _card(kind, c) for kind, c in _CARDS["kinds"].items()},
    **{g["id"]: _goal(g) for g in _GOALS["goals"]},
}


def score_now(view: Mapping[str, Any]) -> list[float]:
    """The points the trees, cards and goals would score now (§5); all of it is public."""
    return [float(s["total"]) for s in view["scores"]]


def breakdown(state: State) -> dict[str, JSON]:
    view = state.observe(None)
    scores: list[dict[str, int]] = view["scores"]
    parts = (("leaf tiles", "leaf"), ("flower tiles", "flower"), ("fruit tiles", "fruit"),
             ("Parchments", "parchments"), ("goal tiles", "goals"), ("total", "total"))  # fmt: skip
    rows = [(label, [s[key] for s in scores]) for label, key in parts]
    order = list(range(1, len(scores) + 1))
    rule = "Most points wins; a tie goes to the tied player seated latest in turn order (§5)."
    return table(rows, state.result(), rule, ("seated latest in turn order wins; position", order))
