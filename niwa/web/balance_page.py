"""The balance page's content (/games/GAME/balance): per player count, the seats' win
share and mean place as server-drawn SVG intervals, and the per-match figures as a
table of strong matches beside all rated ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from niwa.ladder.balance import Interval
from niwa.ladder.balance_report import FIGURES, BalanceReport, balance_index
from niwa.ladder.store.balance import ALL, STRONG, STRONG_ELO, TableSize
from niwa.web import plots


@dataclass(frozen=True)
class FigureRow:
    words: str
    strong: Interval | None
    every: Interval | None


@dataclass(frozen=True)
class SizeView:
    seats: int
    strong_matches: int
    rated_matches: int
    balance: float | None
    wins: Markup
    places: Markup
    rows: list[FigureRow]


def _seat_plot(size: TableSize | None, name: str, title: str, low: float, high: float,
               mark: float) -> Markup:  # fmt: skip
    rows = []
    if size is not None:
        for seat, figures in enumerate(size.by_seat):
            if name in figures:
                i = figures[name]
                rows.append(plots.Mean(f"seat {seat}", i.mean, i.low, i.high, i.count))
    return plots.means(rows, title, low, high, mark)


def _size_view(found: BalanceReport, seats: int) -> SizeView:
    strong, every = found.size(STRONG, seats), found.size(ALL, seats)
    # the strong matches' plots when there are any, else all rated ones', said so
    shown = strong or every
    pool = "strong matches" if strong else "all rated matches (no strong ones yet)"
    return SizeView(
        seats=seats,
        strong_matches=strong.matches if strong else 0,
        rated_matches=every.matches if every else 0,
        balance=None if shown is None else balance_index(shown),
        wins=_seat_plot(shown, "win", f"win share by seat, {pool}", 0.0, 1.0, 1 / seats),
        places=_seat_plot(
            shown, "place", f"mean place by seat, {pool}", 1.0, float(seats), (seats + 1) / 2
        ),
        rows=[
            FigureRow(
                words,
                strong.figures.get(name) if strong else None,
                every.figures.get(name) if every else None,
            )
            for name, words in FIGURES
        ],
    )


def balance_page_context(found: BalanceReport) -> dict[str, Any]:
    return {
        "game": found.game,
        "backlog": found.backlog,
        "strong_elo": STRONG_ELO,
        "sizes": [_size_view(found, seats) for seats in found.table_sizes()],
    }
