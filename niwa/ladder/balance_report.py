"""A game's balance report from the store's running sums: the same figures for
``niwa ladder balance GAME`` (text or JSON) and the web page and its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from niwa.ladder.balance import Interval
from niwa.ladder.store import Store
from niwa.ladder.store.balance import POOLS, STRONG, STRONG_ELO, TableSize

#: The per-match figures, in the order shown, with their words; the Ludii metric each
#: stands for is in docs/ladder.md, "Balance".
FIGURES: tuple[tuple[str, str], ...] = (
    ("lead_changes", "lead changes per match"),
    ("winner_late", "winner not leading when the last round began (share)"),
    ("order_late", "ranking changed in the last round (share)"),
    ("margin", "score margin, first minus second"),
    ("spread", "score spread (standard deviation)"),
    ("rounds", "rounds"),
    ("steps", "decisions"),
)
SEAT_FIGURES: tuple[tuple[str, str], ...] = (("win", "win share"), ("place", "mean place"))


@dataclass(frozen=True)
class BalanceReport:
    game: str
    backlog: int  # rated matches of any game still waiting for the backfill
    pools: Mapping[str, list[TableSize]]  # "strong" and "all"

    def table_sizes(self) -> list[int]:
        return sorted({size.seats for sizes in self.pools.values() for size in sizes})

    def size(self, pool: str, seats: int) -> TableSize | None:
        return next((s for s in self.pools[pool] if s.seats == seats), None)


def report(store: Store, game: str) -> BalanceReport:
    pools = {pool: store.balance.report(game, pool) for pool in POOLS}
    return BalanceReport(game, store.balance.backlog_count(), pools)


def balance_index(size: TableSize) -> float | None:
    """Ludii's Balance: 1 minus the gap between the best and the worst seat's win
    share (1: every seat wins as often); None for one seat."""
    shares = [seat["win"].mean for seat in size.by_seat if "win" in seat]
    if len(shares) != size.seats or size.seats < 2:
        return None
    return 1.0 - (max(shares) - min(shares))


def _interval(value: Interval) -> dict[str, float | int]:
    return {"mean": value.mean, "low": value.low, "high": value.high, "count": value.count}


def _size_json(size: TableSize) -> dict[str, object]:
    return {
        "players": size.seats,
        "matches": size.matches,
        "figures": {
            name: _interval(size.figures[name]) for name, _ in FIGURES if name in size.figures
        },
        "seats": [
            {name: _interval(seat[name]) for name, _ in SEAT_FIGURES if name in seat}
            for seat in size.by_seat
        ],
        "balance": balance_index(size),
    }


def to_json(found: BalanceReport) -> dict[str, object]:
    """The report as JSON (its shape is in docs/ladder.md, "Balance")."""
    return {
        "game": found.game,
        "strong_elo": STRONG_ELO,
        "backlog": found.backlog,
        "pools": {pool: [_size_json(s) for s in sizes] for pool, sizes in found.pools.items()},
    }


def _shown(value: Interval | None) -> str:
    if value is None:
        return "-"
    return f"{value.mean:.2f} [{value.low:.2f}, {value.high:.2f}]"


def describe(found: BalanceReport) -> str:
    """The report as text: per player count, strong matches first, all rated beside."""
    lines = [
        f"{found.game} balance: strong = every seat rated at least {STRONG_ELO:.0f} before the"
        " match, none failing out; means with 95 % intervals [low, high]"
    ]
    if found.backlog:
        lines.append(f"{found.backlog} rated matches wait: run niwa ladder balance --backfill")
    if not found.table_sizes():
        lines.append(f"no rated matches of {found.game} with balance figures yet")
    for seats in found.table_sizes():
        strong, every = found.size(STRONG, seats), found.size("all", seats)
        counts = f"{strong.matches if strong else 0} strong, {every.matches if every else 0} rated"
        lines.append(f"\n{seats} players ({counts} matches)")
        lines.append(f"  {'':<56} {'strong':<26} all rated")
        for name, words in FIGURES:
            a = strong.figures.get(name) if strong else None
            b = every.figures.get(name) if every else None
            lines.append(f"  {words:<56} {_shown(a):<26} {_shown(b)}")
        for seat in range(seats):
            for name, words in SEAT_FIGURES:
                a = strong.by_seat[seat].get(name) if strong else None
                b = every.by_seat[seat].get(name) if every else None
                lines.append(f"  {f'seat {seat} {words}':<56} {_shown(a):<26} {_shown(b)}")
        index = None if strong is None else balance_index(strong)
        if index is not None:
            lines.append(f"  {'balance (1: every seat wins as often)':<56} {index:.2f}")
    return "\n".join(lines)
