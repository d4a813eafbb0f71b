"""Server-side SVG plots for the leaderboard and bot pages: readable without JavaScript.

Drawn with presentation attributes only (no ``style`` attributes: the pages' CSP has no
'unsafe-inline'); every label is escaped, since bot names are their owners' text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from niwa.ladder.views import RatingPoint

#: Points drawn per line: a longer history is thinned evenly (its last point kept).
MAX_POINTS = 200
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
WIDTH, LEFT, RIGHT, TOP, BOTTOM = 720, 56, 180, 16, 32


Axis = Callable[[float], float]


@dataclass(frozen=True)
class Interval:
    label: str
    elo: float
    ci95: float  # inf: not rated yet


def thin(points: Sequence[RatingPoint], limit: int = MAX_POINTS) -> list[RatingPoint]:
    """At most ``limit`` points, evenly spaced, the first and the last kept."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _number(x: float) -> str:
    return f"{x:.1f}".removesuffix(".0")


def _svg(height: int, title: str, body: list[str]) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}">'
        f"<title>{escape(title)}</title>"
    )
    return Markup(head + "".join(body) + "</svg>")


def _empty(title: str, note: str) -> Markup:
    return _svg(40, title, [f'<text x="8" y="24" fill="#555">{escape(note)}</text>'])


def history(lines: dict[str, Sequence[RatingPoint]], title: str = "Elo over matches") -> Markup:
    """One line per bot: its incremental Elo after each rated match (x: finish number)."""
    drawn = {label: thin(points) for label, points in lines.items() if points}
    if not drawn:
        return _empty(title, "no rated matches yet")
    height = 260
    seqs = [p.seq for pts in drawn.values() for p in pts]
    elos = [p.elo for pts in drawn.values() for p in pts]
    x0, x1 = min(seqs), max(max(seqs), min(seqs) + 1)
    y0, y1 = math.floor(min(elos) / 10) * 10, math.ceil(max(elos) / 10) * 10
    y1 = max(y1, y0 + 10)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, height - TOP - BOTTOM

    def x(seq: float) -> float:
        return LEFT + (seq - x0) / (x1 - x0) * plot_w

    def y(value: float) -> float:
        return TOP + (y1 - value) / (y1 - y0) * plot_h

    body = _axes(x0, x1, y0, y1, x, y, height, "match (finish number)")
    for i, (label, points) in enumerate(drawn.items()):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{x(p.seq):.1f},{y(p.elo):.1f}" for p in points)
        last = points[-1]
        body.append(
            f'<polyline class="line" fill="none" stroke="{colour}" stroke-width="1.5" '
            f'points="{path}"><title>{escape(label)}: {_number(last.elo)}</title></polyline>'
        )
        ly = TOP + 14 * i + 8
        body.append(
            f'<rect x="{WIDTH - RIGHT + 10}" y="{ly - 8}" width="10" height="10" '
            f'fill="{colour}"/><text x="{WIDTH - RIGHT + 24}" y="{ly + 1}" font-size="11">'
            f"{escape(label[:26])}</text>"
        )
    return _svg(height, title, body)


def _axes(x0: float, x1: float, y0: float, y1: float, x: Axis, y: Axis, height: int,
          x_label: str) -> list[str]:  # fmt: skip
    """The frame, three Elo ticks and the first and last match numbers."""
    bottom = height - BOTTOM
    body = [
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#888"/>',
        f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#888"/>',
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{height - 4}" font-size="11" '
        f'text-anchor="middle" fill="#555">{escape(x_label)}</text>',
    ]
    for value in (y0, (y0 + y1) / 2, y1):
        body.append(
            f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" font-size="11" text-anchor="end">'
            f"{_number(value)}</text>"
            f'<line x1="{LEFT}" y1="{y(value):.1f}" x2="{WIDTH - RIGHT}" y2="{y(value):.1f}" '
            'stroke="#eee"/>'
        )
    for value in (x0, x1):
        body.append(
            f'<text x="{x(value):.1f}" y="{bottom + 14}" font-size="11" '
            f'text-anchor="middle">{_number(value)}</text>'
        )
    return body


def intervals(rows: Sequence[Interval], title: str = "Elo ± 95 %") -> Markup:
    """A bar per bot from Elo - ci95 to Elo + ci95 with a dot at the Elo, side by side
    in leaderboard order (bots not rated yet are left out)."""
    rated = [r for r in rows if math.isfinite(r.ci95)]
    if not rated:
        return _empty(title, "no rated bots yet")
    row_h = 18
    height = TOP + BOTTOM + row_h * len(rated)
    lo = math.floor(min(r.elo - r.ci95 for r in rated) / 10) * 10
    hi = math.ceil(max(r.elo + r.ci95 for r in rated) / 10) * 10
    hi = max(hi, lo + 10)
    plot_w = WIDTH - LEFT - RIGHT

    def x(value: float) -> float:
        return LEFT + (value - lo) / (hi - lo) * plot_w

    def y(index: float) -> float:
        return TOP + row_h * index + row_h / 2

    body = []
    bottom = height - BOTTOM
    for value in (lo, (lo + hi) / 2, hi):
        body.append(
            f'<line x1="{x(value):.1f}" y1="{TOP}" x2="{x(value):.1f}" y2="{bottom}" '
            f'stroke="#eee"/><text x="{x(value):.1f}" y="{bottom + 14}" font-size="11" '
            f'text-anchor="middle">{_number(value)}</text>'
        )
    for i, r in enumerate(rated):
        colour = PALETTE[i % len(PALETTE)]
        cy = y(i)
        body.append(
            f'<g class="interval"><title>{escape(r.label)}: {_number(r.elo)} ± '
            f"{_number(r.ci95)}</title>"
            f'<line x1="{x(r.elo - r.ci95):.1f}" y1="{cy:.1f}" x2="{x(r.elo + r.ci95):.1f}" '
            f'y2="{cy:.1f}" stroke="{colour}" stroke-width="3"/>'
            f'<circle cx="{x(r.elo):.1f}" cy="{cy:.1f}" r="4" fill="{colour}"/>'
            f'<text x="{WIDTH - RIGHT + 10}" y="{cy + 4:.1f}" font-size="11">'
            f"{escape(r.label[:26])}</text></g>"
        )
    return _svg(height, title, body)


@dataclass(frozen=True)
class Mean:
    label: str
    mean: float
    low: float
    high: float
    count: int


def means(
    rows: Sequence[Mean], title: str, low: float, high: float, mark: float | None = None
) -> Markup:
    """A row per entry: its 95 % interval as a bar with a dot at the mean, on a fixed
    axis from ``low`` to ``high`` (widened to hold every interval), and a dashed line at
    ``mark`` (e.g. the fair share every seat would win)."""
    if not rows:
        return _empty(title, "no matches yet")
    lo = min(low, *(r.low for r in rows))
    hi = max(high, *(r.high for r in rows))
    hi = max(hi, lo + 1e-9)
    row_h = 22
    height = TOP + BOTTOM + row_h * len(rows)
    plot_w = WIDTH - LEFT - RIGHT
    bottom = height - BOTTOM

    def x(value: float) -> float:
        return LEFT + (value - lo) / (hi - lo) * plot_w

    body = []
    for value in (lo, (lo + hi) / 2, hi):
        body.append(
            f'<line x1="{x(value):.1f}" y1="{TOP}" x2="{x(value):.1f}" y2="{bottom}" '
            f'stroke="#eee"/><text x="{x(value):.1f}" y="{bottom + 14}" font-size="11" '
            f'text-anchor="middle">{_decimal(value)}</text>'
        )
    if mark is not None:
        body.append(
            f'<line class="mark" x1="{x(mark):.1f}" y1="{TOP}" x2="{x(mark):.1f}" '
            f'y2="{bottom}" stroke="#555" stroke-dasharray="4 3"/>'
        )
    for i, r in enumerate(rows):
        colour = PALETTE[i % len(PALETTE)]
        cy = TOP + row_h * i + row_h / 2
        body.append(
            f'<g class="mean"><title>{escape(r.label)}: {_decimal(r.mean)} '
            f"[{_decimal(r.low)}, {_decimal(r.high)}], {r.count} matches</title>"
            f'<line x1="{x(r.low):.1f}" y1="{cy:.1f}" x2="{x(r.high):.1f}" y2="{cy:.1f}" '
            f'stroke="{colour}" stroke-width="3"/>'
            f'<circle cx="{x(r.mean):.1f}" cy="{cy:.1f}" r="4" fill="{colour}"/>'
            f'<text x="{WIDTH - RIGHT + 10}" y="{cy + 4:.1f}" font-size="11">'
            f"{escape(r.label[:26])}</text></g>"
        )
    return _svg(height, title, body)


def _decimal(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")
