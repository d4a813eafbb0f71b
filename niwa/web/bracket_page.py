"""A knockout bracket as one self-contained HTML page: no script, no network.

It draws the ``{"type": "bracket", ...}`` object that ``niwa tournament --format
knockout --json`` ends with: a column per round, a box per tie. Bot names are bot
authors' text, so every one is escaped; the Content-Security-Policy allows the one
inline style (by hash) and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Mapping, Sequence
from typing import Any

STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
.rounds { display: flex; gap: 2em; align-items: stretch; }
.round { display: flex; flex-direction: column; justify-content: space-around; gap: .8em; }
.round h2 { font-size: 13px; margin: 0 0 .4em; color: #666; }
.tie { border: 1px solid #bbb; border-radius: 4px; min-width: 14em; }
.bot { display: flex; justify-content: space-between; gap: 1em; padding: .2em .5em; }
.bot + .bot { border-top: 1px solid #ddd; }
.won { font-weight: bold; }
.seed { color: #888; margin-right: .4em; }
.how { font-size: 11px; color: #777; padding: 0 .5em .2em; }
.champion { margin-top: 1.5em; font-size: 16px; }
"""

#: How a tie was decided, in words (the ``decided_by`` values).
HOW = {"bye": "bye", "games": "on points", "sprt": "SPRT", "cap": "on points at the cap",
       "seed": "level: better seed"}


def round_name(number: int, rounds: int) -> str:
    left = rounds - number
    return {0: "final", 1: "semi-finals", 2: "quarter-finals"}.get(left, f"round {number}")


def _entrant(name: str | None, seed: int | None, points: float, won: bool, bye: bool) -> str:
    if name is None:
        return '<div class="bot"><span>(bye)</span></div>'
    score = "" if bye else f"<span>{points:g}</span>"
    return (f'<div class="bot{" won" if won else ""}"><span><span class="seed">{seed}</span>'
            f"{html.escape(name)}</span>{score}</div>")


def _tie(tie: Mapping[str, Any]) -> str:
    bye = tie["b"] is None
    how = HOW.get(tie.get("decided_by") or "", "")
    games = "" if bye else f"{tie['games']} games"
    note = ", ".join(x for x in (games, how if tie.get("winner") else "playing") if x)
    return ('<div class="tie">'
            + _entrant(tie["a"], tie["seed_a"], tie["points_a"], tie["winner"] == tie["a"], bye)
            + _entrant(tie["b"], tie["seed_b"], tie["points_b"],
                       tie["winner"] is not None and tie["winner"] == tie["b"], bye)
            + f'<div class="how">{html.escape(note)}</div></div>')


def bracket_html(bracket: Mapping[str, Any], title: str = "knockout") -> str:
    """The page of a bracket object (as ``--json`` writes it)."""
    rounds: Sequence[Sequence[Mapping[str, Any]]] = bracket["rounds"]
    total = max(1, int(bracket["slots"]).bit_length() - 1)
    columns = "".join(
        f'<div class="round"><h2>{round_name(n, total)}</h2>'
        + "".join(_tie(t) for t in ties) + "</div>"
        for n, ties in enumerate(rounds, 1))
    champion = bracket.get("champion")
    end = ("" if champion is None else
           f'<p class="champion">champion: <b>{html.escape(champion)}</b></p>')
    digest = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    policy = f"default-src 'none'; style-src 'sha256-{digest}'"
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f'<body><h1>{html.escape(title)}</h1><div class="rounds">{columns}</div>{end}'
        "</body></html>\n"
    )
