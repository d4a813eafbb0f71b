"""Per-match balance figures and their running aggregates (docs/ladder.md, "Balance").

Pure functions over a match's score history (one score per seat at the end of each
round, the last entry the final scores) and its final places (0 = first, as the
engine and the store count them), so the worker computes them from the replay it just
wrote and the backfill from a stored replay alike. The aggregate keeps only counts,
sums and sums of squares, so a match updates it in O(seats) and a page view never scans
matches. Ludii anchors: lead changes ~ LeadChange, decided in the last round ~ the
complement of Decisiveness, seat win share ~ AdvantageP1 and Balance.
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
    """How often the set of leading seats changed from one round's end to the next.

    A tie is its own state: passing from "seat 0 leads" to "0 and 1 tie" counts once,
    and again when seat 1 then leads alone, as in Ludii's LeadChange. The first round's
    end sets the first lead; reaching it is no change.
    """
    return sum(1 for before, after in pairwise(history) if leaders(before) != leaders(after))


def ranks(scores: Scores) -> tuple[int, ...]:
    """Places by score, 0 first; tied seats share the better place (1224 ranking)."""
    return tuple(sum(1 for other in scores if other > score) for score in scores)


def winners(places: Sequence[int]) -> frozenset[int]:
    return frozenset(seat for seat, place in enumerate(places) if place == 0)


def standing_before_last_round(history: Sequence[Scores], start: Scores) -> Scores:
    """The scores when the last round began: the previous round's end, or ``start``
    (the scores before any move) when the match had one round."""
    return history[-2] if len(history) >= 2 else start


def winner_decided_late(history: Sequence[Scores], start: Scores, places: Sequence[int]) -> bool:
    """The winners are not the leaders at the start of the last round (a shared lead
    that one seat turns into a win counts: the lead was not yet the win)."""
    return winners(places) != leaders(standing_before_last_round(history, start))


def order_decided_late(history: Sequence[Scores], start: Scores, places: Sequence[int]) -> bool:
    """The final places differ from the score ranking at the start of the last round
    (any swap, a tie broken or a new tie, on any place, not only the first)."""
    return tuple(places) != ranks(standing_before_last_round(history, start))


def margin(final: Scores) -> float:
    """The final score gap between the best and the second best (0 for one seat)."""
    ranked = sorted(final, reverse=True)
    return ranked[0] - ranked[1] if len(ranked) > 1 else 0.0


def spread(final: Scores) -> float:
    """The population standard deviation of the final scores."""
    mean = sum(final) / len(final)
    return math.sqrt(sum((score - mean) ** 2 for score in final) / len(final))


def win_shares(places: Sequence[int]) -> tuple[float, ...]:
    """Each seat's share of the win: 1 for a sole winner, 1/k for k seats sharing first."""
    first = winners(places)
    return tuple(1.0 / len(first) if seat in first else 0.0 for seat in range(len(places)))


@dataclass(frozen=True)
class MatchBalance:
    """One match's figures. The lead figures are None for a game with no running score
    (no ``score_now`` hook): only its final scores are known."""

    places: tuple[int, ...]
    scores: tuple[float, ...]
    steps: int  # decisions (chance outcomes are not counted)
    rounds: int
    lead_changes: int | None
    winner_late: bool | None
    order_late: bool | None

    @classmethod
    def of(
        cls,
        places: Sequence[int],
        scores: Scores,
        start: Scores | None,
        history: Sequence[Scores] | None,
        steps: int,
    ) -> MatchBalance:
        """The figures of a match from its final ``places`` and ``scores``, its
        round-end scores (``history``, ending with the final scores) and its scores
        before any move (``start``); the last two None for a game without running
        scores, whose ``rounds`` then count its decisions."""
        if history is None or start is None or not history:
            return cls(tuple(places), tuple(scores), steps, steps, None, None, None)
        return cls(
            places=tuple(places),
            scores=tuple(scores),
            steps=steps,
            rounds=len(history),
            lead_changes=lead_changes(history),
            winner_late=winner_decided_late(history, start, places),
            order_late=order_decided_late(history, start, places),
        )

    def match_values(self) -> dict[str, float]:
        """The per-match figures by name (one value a match, whatever the seat)."""
        values = {"steps": float(self.steps), "rounds": float(self.rounds),
                  "margin": margin(self.scores), "spread": spread(self.scores)}  # fmt: skip
        if self.lead_changes is not None:
            values["lead_changes"] = float(self.lead_changes)
            values["winner_late"] = float(bool(self.winner_late))
            values["order_late"] = float(bool(self.order_late))
        return values

    def seat_values(self) -> list[dict[str, float]]:
        """Per seat: its share of the win and its place (1 = first, as people count)."""
        return [
            {"win": share, "place": float(place + 1)}
            for share, place in zip(win_shares(self.places), self.places, strict=True)
        ]


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

    def share_interval(self) -> Interval | None:
        """For a share (each value from 0 to 1): Wilson's 95 % score interval, which
        stays within [0, 1] and is not a point for a share of 0 or 1 (the normal
        interval's width is 0 there, however few the matches)."""
        if self.count == 0:
            return None
        n, p = self.count, self.total / self.count
        centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
        return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n)

    def interval(self) -> Interval | None:
        """The mean's normal 95 % interval; one value gives the value itself."""
        if self.count == 0:
            return None
        mean = self.total / self.count
        if self.count == 1:
            return Interval(mean, mean, mean, 1)
        variance = max(0.0, (self.squares - self.count * mean * mean) / (self.count - 1))
        half = Z95 * math.sqrt(variance / self.count)
        return Interval(mean, mean - half, mean + half, self.count)
