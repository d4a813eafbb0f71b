"""Per-match balance metrics and their running aggregates.

Pure functions over a match's per-round score history (one tuple of scores per seat
after each round) and its final places, so the worker can compute them from the
final state and the stored replay alike. The aggregate keeps only counts, sums and
sums of squares, so a new match updates it in O(seats) and a page view never scans
matches. Ludii anchors: lead changes ~ LeadChange, decided-in-last-round ~ the
complement of Decisiveness's early decision, seat win share ~ AdvantageP1/Balance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

Z95 = 1.959963984540054

Scores = Sequence[float]


def leaders(scores: Scores) -> frozenset[int]:
    """The seats holding the highest score (a tie shares the lead)."""
    best = max(scores)
    return frozenset(seat for seat, score in enumerate(scores) if score == best)


def lead_changes(history: Sequence[Scores]) -> int:
    """How often the set of leading seats changed from one round to the next.

    A tie is its own state: passing from "seat 0 leads" to "0 and 1 tie" counts once,
    and again when seat 1 then leads alone, as in Ludii's LeadChange.
    """
    changes = 0
    for before, after in pairwise(history):
        if leaders(before) != leaders(after):
            changes += 1
    return changes


def order(scores: Scores) -> tuple[int, ...]:
    """Seats from best to worst score; ties keep seat order, so the order is stable."""
    return tuple(sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat)))


def decided_in_last_round(history: Sequence[Scores], places: Sequence[int]) -> bool:
    """Whether the last round changed the outcome.

    True when the winners (place 1) are not the leaders at the start of the last
    round, or when the score order before the last round differs from the final
    places' order. A match of one round or fewer counts as decided in its last round.
    """
    if len(history) < 2:
        return True
    winners = frozenset(seat for seat, place in enumerate(places) if place == 1)
    if winners != leaders(history[-2]):
        return True
    final_order = tuple(sorted(range(len(places)), key=lambda seat: (places[seat], seat)))
    return order(history[-2]) != final_order


def margin(final: Scores) -> float:
    """The final score gap between the first and the second seat (0 for one seat)."""
    ranked = sorted(final, reverse=True)
    return ranked[0] - ranked[1] if len(ranked) > 1 else 0.0


def spread(final: Scores) -> float:
    """The population standard deviation of the final scores."""
    mean = sum(final) / len(final)
    return math.sqrt(sum((score - mean) ** 2 for score in final) / len(final))


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    count: int


@dataclass
class Running:
    """Count, sum and sum of squares of one quantity; a normal 95 % interval of its mean."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.squares += value * value

    def interval(self) -> Interval | None:
        if self.count == 0:
            return None
        mean = self.total / self.count
        if self.count == 1:
            return Interval(mean, mean, mean, 1)
        variance = max(0.0, (self.squares - self.count * mean * mean) / (self.count - 1))
        half = Z95 * math.sqrt(variance / self.count)
        return Interval(mean, mean - half, mean + half, self.count)
