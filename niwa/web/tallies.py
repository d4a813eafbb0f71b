"""Per-bot counts the leaderboard shows beside the store's totals: mean place in rated
matches and failures by class.

The store keeps no such totals, and summing every seat per page view would read all
results (300,000 rows at 100,000 matches), so the server has the database sum them once
and then adds only the matches finished since (finish numbers count up by one), under a
lock: pages are served from worker threads.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from niwa.ladder.reads import Reads
from niwa.ladder.store import RATED


@dataclass
class BotTally:
    rated: int = 0
    place_sum: int = 0  # places from 0
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def mean_place(self) -> float | None:
        """Mean place counted from 1; None before a rated match."""
        return self.place_sum / self.rated + 1 if self.rated else None


class Tallies:
    def __init__(self) -> None:
        self._bots: dict[int, BotTally] = {}
        self._seq = 0
        self._lock = threading.Lock()

    def catch_up(self, reads: Reads) -> int:
        """Count the matches finished since the last call; return the newest seq."""
        with self._lock:
            head = reads.head()
            if self._seq == 0 and head:
                for totals in reads.seat_totals(head):
                    self._bots[totals.bot_id] = BotTally(
                        totals.rated, totals.place_sum, Counter(dict(totals.failures))
                    )
                self._seq = head
            while self._seq < head:
                batch = 1000
                for seat in reads.outcomes_after(self._seq, batch):
                    tally = self._bots.setdefault(seat.bot_id, BotTally())
                    if seat.kind == RATED:
                        tally.rated += 1
                        tally.place_sum += seat.place
                    if seat.failure:
                        tally.failures[seat.failure] += 1
                self._seq = min(self._seq + batch, head)
            return self._seq

    def get(self, bot_id: int) -> BotTally:
        with self._lock:
            kept = self._bots.get(bot_id) or BotTally()
            return BotTally(kept.rated, kept.place_sum, Counter(kept.failures))
