"""The ratings a tournament's table shows: the ladder's Plackett-Luce fit over the
full finishing orders with a seat effect per player count (the default, so that a
tournament and a ladder give the same figures on the same games), or its older
pairwise Bradley-Terry fit (``--rating pairwise``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from niwa.ladder import plackett_luce
from niwa.ladder.elo import Estimate, fmt_elo
from niwa.ladder.mle import batch_elo
from niwa.series.games import GameRecord

PLACKETT_LUCE, PAIRWISE = "plackett-luce", "pairwise"
RATINGS = (PLACKETT_LUCE, PAIRWISE)


@dataclass(frozen=True)
class Fitted:
    """Each bot's Elo ± 95 %; ``seats[n, s]``: seat s's effect at n seats against seat 0,
    in Elo points (Plackett-Luce only)."""

    ratings: dict[str, Estimate]
    seats: dict[tuple[int, int], Estimate] = field(default_factory=dict)


def orders(records: Sequence[GameRecord]) -> list[list[tuple[str, int, int]]]:
    """The games as the Plackett-Luce fit reads them: (bot, seat, place) per seat."""
    return [[(s.bot, seat, s.place) for seat, s in enumerate(r.seats)] for r in records]


def fit(records: Sequence[GameRecord], rating: str = PLACKETT_LUCE) -> Fitted:
    if rating == PAIRWISE:
        return Fitted(batch_elo([[(s.bot, s.place) for s in r.seats] for r in records]))
    found = plackett_luce.fit(orders(records))
    return Fitted(found.ratings, found.seats)


def seat_lines(seats: dict[tuple[int, int], Estimate]) -> list[str]:
    """The seat effects under the table, one line per player count."""
    counts = sorted({n for n, _ in seats})
    return [
        f"seat effect at {n} seats (Elo against seat 0, ± 95%): " + ", ".join(
            f"seat {s} {fmt_elo(seats[n, s].elo, 0)} ± {seats[n, s].ci95:.0f}"
            for s in range(1, n) if (n, s) in seats
        )
        for n in counts
    ]  # fmt: skip


def fit_lines(fitted: Fitted) -> list[str]:
    """A series' ratings and seat effects, after its table (``niwa match``)."""
    if not fitted.ratings:
        return []
    best = sorted(fitted.ratings.items(), key=lambda item: -item[1].elo)
    return [
        "Plackett-Luce Elo ± 95% (the ladder's fit): "
        + ", ".join(f"{bot} {e.elo:.0f} ± {e.ci95:.0f}" for bot, e in best),
        *seat_lines(fitted.seats),
    ]


def seats_json(seats: dict[tuple[int, int], Estimate]) -> list[dict[str, Any]]:
    return [
        {"players": n, "seat": s, "elo": e.elo, "ci95": e.ci95}
        for (n, s), e in sorted(seats.items())
    ]
