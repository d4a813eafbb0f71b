"""The viewer's score chart and end-of-game table for Miyabi (miyabi.md, Scoring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, State
from niwa.engine.scoreboard import table


def score_now(view: Mapping[str, Any]) -> list[float]:
    """Points so far: placements and layer-5 bonuses, then the end scoring once done."""
    return [float(g["score"]) for g in view["gardens"]]


def round_ends(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A round is one of the game's rounds (the display laid out, then emptied)."""
    return bool(after["round"] > before["round"])


def breakdown(state: State) -> dict[str, JSON]:
    view = state.observe(None)
    gardens: list[dict[str, Any]] = view["gardens"]
    options: dict[str, Any] = view["options"]
    bonus = [sum(options[f"bonusLayer5Points.{o}"] for o in g["bonuses"]) for g in gardens]
    ends = [dict(g.get("end_scoring") or {}) for g in gardens]
    kinds = list(dict.fromkeys(k for e in ends for k in e))
    end_total = [sum(e.values()) for e in ends]
    placement = [g["score"] - b - e for g, b, e in zip(gardens, bonus, end_total, strict=True)]
    rows: list[tuple[str, list[JSON]]] = [("placements", placement), ("layer-5 bonuses", bonus)]
    rows += [(f"end: {k}", [e.get(k, 0) for e in ends]) for k in kinds]
    rows.append(("total", [g["score"] for g in gardens]))
    rule = "Most points wins; tied players share the place (finalTie: shared, §7)."
    return table(rows, state.result(), rule)
