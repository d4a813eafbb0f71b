"""Bot A against bot B over a series: the observations of :mod:`niwa.series.stats`.

With two players, two bots and pairs, an observation is a game pair (both seatings of
one deal): the pentanomial model. Otherwise each game is one observation, scored by
A's places against B's places in it (:func:`a_score`) as a loss, draw or win: the
trinomial model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from niwa.ladder.elo import fmt_elo, pair_score
from niwa.series import stats
from niwa.series.games import GameRecord
from niwa.series.report import json_number


def a_score(places: Sequence[int], seats: Sequence[str], a: str, b: str) -> float:
    """A's share of the (A seat, B seat) pairs where A placed better; ties count half."""
    a_seats = [i for i, who in enumerate(seats) if who == a]
    b_seats = [i for i, who in enumerate(seats) if who == b]
    total = 0.0
    for i in a_seats:
        for j in b_seats:
            total += pair_score(places[i], places[j])
    return total / (len(a_seats) * len(b_seats))


class HeadToHead:
    """Counts of A's outcomes against B; ``per_pair`` games make one observation
    (2: the pentanomial model, 1: the trinomial one)."""

    def __init__(self, a: str, b: str, per_pair: int, sprt: stats.Sprt | None) -> None:
        self.a, self.b = a, b
        self.per_pair = per_pair
        self.ladder = stats.PENTANOMIAL if per_pair == 2 else stats.TRINOMIAL
        self.model = "pentanomial" if per_pair == 2 else "trinomial"
        self.counts = [0] * len(self.ladder)
        self.pending: dict[int, list[float]] = {}
        self.sprt = sprt
        self.verdict: stats.Verdict = "continue"
        self.llr = 0.0

    def add(self, record: GameRecord) -> None:
        score = a_score(record.places(), record.job.ids, self.a, self.b)
        if self.per_pair == 1:
            self.counts[2 if score > 0.5 else 1 if score == 0.5 else 0] += 1
        else:
            games = self.pending.setdefault(record.job.round, [])
            games.append(score)
            if len(games) < self.per_pair:
                return
            del self.pending[record.job.round]
            # each game scores 0, ½ or 1: the pair's sum in halves is the outcome
            self.counts[round(sum(games) * 2)] += 1
        if self.sprt is not None and self.verdict == "continue":
            self.llr = stats.llr(self.counts, self.ladder, self.sprt.elo0, self.sprt.elo1)
            self.verdict = self.sprt.verdict(self.llr)

    def summary(self) -> stats.Summary | None:
        return stats.summarise(self.counts, self.ladder)

    def lines(self) -> list[str]:
        s = self.summary()
        unit = "pairs" if self.per_pair == 2 else "games"
        out = []
        if s is None:
            out.append(f"A-B: no complete {unit} yet")
        else:
            out.append(
                f"A-B ({self.model}, {s.observations} {unit} {self.counts}): score {s.score:.3f}, "
                f"Elo {fmt_elo(s.elo)} [{fmt_elo(s.elo_low)}, {fmt_elo(s.elo_high)}], "
                f"LOS {s.los:.1%}"
            )
        if self.sprt is not None:
            t = self.sprt
            out.append(
                f"SPRT elo0={t.elo0:g} elo1={t.elo1:g} alpha={t.alpha:g} beta={t.beta:g}: "
                f"LLR {self.llr:.2f} in [{t.lower:.2f}, {t.upper:.2f}]"
                + ("" if self.verdict == "continue" else f": {self.verdict} accepted")
            )
        return out

    def to_json(self, finished: bool) -> dict[str, Any]:
        s = self.summary()
        out: dict[str, Any] = {"a": self.a, "b": self.b, "model": self.model,
                               "counts": list(self.counts)}
        if s is not None:
            out.update(
                observations=s.observations,
                score=s.score,
                elo=json_number(s.elo),
                elo_low=json_number(s.elo_low),
                elo_high=json_number(s.elo_high),
                los=s.los,
            )
        if self.sprt is not None:
            verdict = self.verdict if self.verdict != "continue" else (
                "inconclusive" if finished else "continue")
            t = self.sprt
            out["sprt"] = {"elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta,
                           "llr": self.llr, "lower": t.lower, "upper": t.upper,
                           "verdict": verdict}
        return out
