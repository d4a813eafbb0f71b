"""Game balance (niwa.ladder.balance): each rated match's figures, and their running
sums per game, table size, pool and seat, added as each match commits, so a report
reads a few dozen rows and never the matches."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from niwa.ladder.balance import Interval, MatchBalance, Running
from niwa.ladder.elo import BASE
from niwa.ladder.store.base import DONE, RATED, Part
from niwa.referee.failures import SeatStatus

#: A strong match: every seat's bot was rated at least this before it (its running Elo
#: in rating_history, the same at commit and at backfill), and none failed out of it.
#: Everyone starts at BASE, so this is a bot that beats a newcomer about 64 % of the time.
STRONG_ELO = BASE + 100.0
ALL, STRONG = "all", "strong"
POOLS = (ALL, STRONG)
#: The seat of a per-match figure in balance_totals.
MATCH = -1
#: The figures that are shares (from 0 to 1): their intervals are Wilson's.
SHARES = frozenset({"win", "winner_late", "order_late"})


@dataclass(frozen=True)
class TableSize:
    """One player count's aggregates in one pool: per-match figures, and per seat."""

    seats: int
    matches: int
    figures: Mapping[str, Interval]
    by_seat: tuple[Mapping[str, Interval], ...]


class Balance(Part):
    def record(self, match_id: int, game: str, figures: MatchBalance) -> bool:
        """Add a rated match's figures, inside the transaction that rated it (its
        rating_history rows hold each seat's Elo before it). False, and nothing
        written, for a match with no rating rows (recorded but never rated)."""
        row = self.db.one(
            "SELECT MIN(elo_before) AS weakest FROM rating_history WHERE match_id = ?",
            (match_id,),
        )
        if row is None or row["weakest"] is None:
            return False
        weakest = float(row["weakest"])
        # a seat that failed out played no game worth measuring the rules by
        out = self.db.scalar(
            f"SELECT COUNT(*) FROM results WHERE match_id = ? AND status <> '{SeatStatus.OK}'",
            (match_id,),
        )
        strong = weakest >= STRONG_ELO and not out
        values = figures.match_values()
        seats = len(figures.places)
        self.db.execute(
            "INSERT INTO balance_matches (match_id, game, seats, strong, weakest_elo, steps,"
            " rounds, lead_changes, winner_late, order_late, margin, spread)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match_id, game, seats, int(strong), weakest, figures.steps, figures.rounds,
                figures.lead_changes, _flag(figures.winner_late), _flag(figures.order_late),
                values["margin"], values["spread"],
            ),
        )  # fmt: skip
        rows = [(MATCH, name, value) for name, value in values.items()]
        for seat, seat_values in enumerate(figures.seat_values()):
            rows += [(seat, name, value) for name, value in seat_values.items()]
        pools = POOLS if strong else (ALL,)
        self.db.execute_many(
            "INSERT INTO balance_totals (game, seats, pool, seat, metric, count, total, squares)"
            " VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (game, seats, pool, seat, metric)"
            " DO UPDATE SET count = balance_totals.count + 1,"
            " total = balance_totals.total + ?, squares = balance_totals.squares + ?",
            [
                (game, seats, pool, seat, name, v, v * v, v, v * v)
                for pool in pools
                for seat, name, v in rows
            ],
        )
        return True

    def wait_for_backfill(self, match_id: int) -> None:
        """A rated match whose figures could not be computed when it committed."""
        self.db.execute(
            "INSERT INTO balance_backlog (match_id) VALUES (?) ON CONFLICT (match_id) DO NOTHING",
            (match_id,),
        )

    def backlog(self, limit: int) -> list[tuple[int, str]]:
        """Up to ``limit`` (match id, game) waiting for the backfill, oldest first."""
        rows = self.db.execute(
            "SELECT b.match_id, m.game FROM balance_backlog b JOIN matches m"
            " ON m.id = b.match_id ORDER BY b.match_id LIMIT ?",
            (limit,),
        )
        return [(int(r["match_id"]), str(r["game"])) for r in rows]

    def backlog_count(self) -> int:
        return int(self.db.scalar("SELECT COUNT(*) FROM balance_backlog"))

    def backfill(
        self, match_id: int, game: str, figures: MatchBalance | None, reason: str = ""
    ) -> bool:
        """Take a match off the backlog, adding its figures; None: its replay could not
        give any (``reason`` says why), so it is marked skipped and not tried again.
        True if it counted."""
        with self.db.transaction() as db:
            gone = db.one(
                "DELETE FROM balance_backlog WHERE match_id = ? RETURNING match_id", (match_id,)
            )
            done = db.one("SELECT 1 AS yes FROM balance_matches WHERE match_id = ?", (match_id,))
            if gone is None or done is not None:
                return False
            if figures is not None and self.record(match_id, game, figures):
                return True
            db.execute(
                "INSERT INTO balance_skipped (match_id, reason) VALUES (?, ?)",
                (match_id, (reason or "it was never rated")[:500]),
            )
            return False

    def enqueue_missing(self) -> int:
        """Put on the backlog every rated match that has ratings but no figures and is
        neither waiting nor skipped: one an older niwa recorded on this store during a
        rolling upgrade, after a newer node had migrated it. How many were added."""
        with self.db.transaction() as db:
            rows = db.execute(
                "INSERT INTO balance_backlog (match_id) SELECT m.id FROM matches m"
                f" WHERE m.kind = '{RATED}' AND m.state = '{DONE}'"
                " AND EXISTS (SELECT 1 FROM rating_history h WHERE h.match_id = m.id)"
                " AND NOT EXISTS (SELECT 1 FROM balance_matches b WHERE b.match_id = m.id)"
                " AND NOT EXISTS (SELECT 1 FROM balance_backlog w WHERE w.match_id = m.id)"
                " AND NOT EXISTS (SELECT 1 FROM balance_skipped s WHERE s.match_id = m.id)"
                " RETURNING match_id"
            )
        return len(rows)

    def skipped_count(self) -> int:
        return int(self.db.scalar("SELECT COUNT(*) FROM balance_skipped"))

    def report(self, game: str, pool: str = STRONG) -> list[TableSize]:
        """``game``'s aggregates in ``pool``, one per player count, fewest seats first."""
        rows = self.db.execute(
            "SELECT seats, seat, metric, count, total, squares FROM balance_totals"
            " WHERE game = ? AND pool = ? ORDER BY seats, seat, metric",
            (game, pool),
        )
        found: dict[int, dict[int, dict[str, Interval]]] = {}
        for r in rows:
            running = Running(int(r["count"]), float(r["total"]), float(r["squares"]))
            metric, seats = str(r["metric"]), int(r["seats"])
            interval = running.share_interval() if metric in SHARES else running.interval()
            if interval is not None:
                # no figure is below 0, nor a place outside 1 to the seat count
                top = float(seats) if metric == "place" else math.inf
                floor = 1.0 if metric == "place" else 0.0
                interval = replace(interval, low=max(floor, interval.low),
                                   high=min(top, interval.high))  # fmt: skip
                table = found.setdefault(seats, {})
                table.setdefault(int(r["seat"]), {})[metric] = interval
        sizes = []
        for seats, by_seat in sorted(found.items()):
            figures = by_seat.get(MATCH, {})
            counted = figures.get("steps")
            sizes.append(
                TableSize(
                    seats=seats,
                    matches=0 if counted is None else counted.count,
                    figures=figures,
                    by_seat=tuple(by_seat.get(seat, {}) for seat in range(seats)),
                )
            )
        return sizes


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)
