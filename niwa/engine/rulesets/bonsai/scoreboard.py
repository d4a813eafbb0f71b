"""The viewer's score chart, end-of-game table and card and goal words for Bonsai
(bonsai.md §2.2, §4.1, §5), the words built from the rules data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from niwa.engine.api import JSON, State
from niwa.engine.rulesets.bonsai.render import card_name
from niwa.engine.rulesets.bonsai.rules import CARD_KINDS, GOALS
from niwa.engine.scoreboard import table

GLOSSARY: Final[Mapping[str, str]] = {
    **{kind: card_name(kind) for kind in CARD_KINDS},
    **{g.id: f"{g.style} {g.level} ({g.points})" for g in GOALS.values()},
}


def score_now(view: Mapping[str, Any]) -> list[float]:
    """The points the trees, cards and goals would score now (§5); all of it is public."""
    return [float(s["total"]) for s in view["scores"]]


def round_ends(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A round is one turn of every seat, seat 0 first (§7.1): the turn passed back to
    seat 0. Alone, every turn is a round: a turn ends when its action is cleared."""
    if int(after["players"]) == 1:
        return before["turn"]["action"] is not None and after["turn"]["action"] is None
    return bool(after["current"] == 0 and before["current"] != 0)


def breakdown(state: State) -> dict[str, JSON]:
    view = state.observe(None)
    scores: list[dict[str, int]] = view["scores"]
    parts = (("leaf tiles", "leaf"), ("flower tiles", "flower"), ("fruit tiles", "fruit"),
             ("Parchments", "parchments"), ("goal tiles", "goals"), ("total", "total"))  # fmt: skip
    rows = [(label, [s[key] for s in scores]) for label, key in parts]
    order = list(range(1, len(scores) + 1))
    rule = "Most points wins; a tie goes to the tied player seated latest in turn order (§5)."
    return table(rows, state.result(), rule, ("seated latest in turn order wins; position", order))
