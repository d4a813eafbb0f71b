"""A game's last leaderboard fit with what it was made from, so the next read after a
rated match adds that match's pairs and restarts Newton's method from the last ratings
instead of reading every pair again and fitting from zero."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from niwa.ladder import elo


@dataclass
class KeptFit:
    """The fit of one game over the bots ``shown``, from its first ``matches`` rated
    matches (the newest of them numbered ``seq``)."""

    shown: frozenset[int]
    matches: int
    seq: int
    pairs: elo.Pairs[int]
    fit: elo.Fit[int] = field(default_factory=elo.Fit)

    def add(self, seq: int, placings: Sequence[tuple[int, int]]) -> None:
        """Count one more rated match as ``Ratings.shown_totals`` would: cut down to the
        shown seats, each pair weighing 1/(seats shown - 1)."""
        kept = [(bot, place) for bot, place in placings if bot in self.shown]
        for a, b, games, score in elo.match_pairs(kept) if len(kept) >= 2 else []:
            self.pairs.add(a, b, games, score)
        self.matches += 1
        self.seq = max(self.seq, seq)

    def refit(self) -> dict[int, elo.Estimate]:
        """Fit again, starting from the last fit; remember it and return its estimates."""
        from niwa.ladder import mle

        self.fit = mle.fit_from(self.pairs, self.fit)
        return self.fit.estimates

