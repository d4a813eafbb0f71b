"""A Plackett-Luce fit kept between leaderboard reads and moved match by match.

A full fit (:func:`niwa.ladder.plackett_luce.fit`) reads every match's stages for each
Newton step: seconds at 100,000 matches. Kept instead: the last fit's parameters
``theta`` and the inverse ``cov`` of its information matrix (prior included). A new
match touches only its own bots, its seats' effects and log delta (k <= 2n + 1
parameters); its information H is a k x k block, so the new inverse is a rank-k
Woodbury update of the kept one,

    cov' = cov - U (I + H W)^-1 H U^T     (U = cov[:, S], W = cov[S, S])

O(p^2 k) for p parameters, and one Newton step from the kept point, theta' = theta +
cov' g (g: the new match's gradient; the old matches' is taken as zero at the kept
point), moves the ratings. The diagonal of ``cov'`` gives the intervals.

The step is exact for a quadratic log-likelihood; the error it leaves grows with the
steps taken, so the fit is re-converged from all the matches (Newton's method to the
end, started from the current point) once a hundredth of the matches were stepped in
(at least :data:`REFIT_MIN`) or when one step moved a parameter by more than
:data:`STEP_LIMIT`, in a thread: the reads go on with the one-step fit meanwhile, and
the re-converged fit replaces it (the matches that arrived while it ran are stepped in
again on top of it). A small fit (:data:`EXACT_UPTO`) is re-converged on the read.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import structlog

from niwa.ladder import plackett_luce as pl
from niwa.ladder.blocks import one_blas_thread
from niwa.ladder.elo import BASE, SCALE, Z95, Estimate

log = structlog.get_logger("niwa.ladder.kept_pl")

#: A one-step update that moves a parameter more than this (natural-log units, 17 Elo)
#: asks for a re-convergence at once.
STEP_LIMIT = 0.1
#: Re-converge after a hundredth of the matches were stepped in, at least this many
#: (tests/ladder/test_kept_pl.py: 1 % more matches leave the ratings within 1 Elo).
REFIT_MIN = 10
#: Up to this many matches a new one re-converges the fit at once, on the read: a
#: full fit started from the kept point takes a few ms there (7 ms at 1,000 matches
#: and 100 bots), so a small ladder's board is always the exact fit.
EXACT_UPTO = 1000
#: Virtual draws per bot and seat effect against strength 0, as the full fit's default.
PRIOR_GAMES = 1.0

Match = Sequence[pl.Seat[int]]

#: BLAS on one thread, set once per process: a rank-k update of a 1,000 x 1,000
#: inverse took 1.9 ms of CPU with OpenBLAS's threads on two busy cores, 0.6 ms on one.
_one_blas_thread = cache(one_blas_thread)


@dataclass(frozen=True)
class SeatEffect:
    """Seat ``seat``'s effect against seat 0 in matches of ``players`` seats, Elo."""

    players: int
    seat: int
    effect: Estimate


@dataclass
class KeptPL:
    """The Plackett-Luce fit of ``matches`` (each (bot, seat, place) per seat), kept as
    its parameters (keyed as :attr:`PLFit.raw`) and the inverse of its information.

    ``auto``: re-converge in a thread when due (tests step and re-converge by hand)."""

    matches: list[Match] = field(default_factory=list)
    keys: list[object] = field(default_factory=list)
    theta: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cov: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    ties: bool = False
    stepped: int = 0  # one-step updates since the last full fit
    refits: int = 0  # full fits so far
    auto: bool = True
    _index: dict[object, int] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _running: threading.Thread | None = None
    version: int = 0  # moves with every change of the fit: what a cached board checks
    _scratch: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    _waiting_tie: bool = False  # a first tie needs log delta: only a full fit adds it
    _jumped: bool = False  # a step moved a parameter by more than STEP_LIMIT

    @classmethod
    def fitted(
        cls, matches: Sequence[Match], auto: bool = True, start: dict[object, float] | None = None
    ) -> KeptPL:
        """A kept fit of ``matches``, fitted fully now (Newton's method from ``start``,
        parameters keyed as :attr:`PLFit.raw`, when given: from zero otherwise)."""
        kept = cls(matches=list(matches), auto=auto)
        kept.reconverge(start)
        return kept

    @property
    def due(self) -> bool:
        """Has the fit taken enough one-step updates to be re-converged?"""
        return (self._waiting_tie or self._jumped
                or self.stepped >= max(REFIT_MIN, len(self.matches) // 100))

    def add(self, match: Match) -> None:
        """Count one more match: one Newton step with the updated inverse (or, for the
        first tie ever, a re-convergence that adds log delta). ``auto``: a fit of at
        most :data:`EXACT_UPTO` matches is re-converged at once instead."""
        if self.auto and len(self.matches) < EXACT_UPTO:
            with self._lock:
                self.matches.append(match)
            self.reconverge()
            return
        with self._lock:
            self.matches.append(match)
            places = [place for _, _, place in match]
            if len(set(places)) < len(places) and not self.ties:
                self._waiting_tie = True
            else:
                self._jumped = self._step(match) > STEP_LIMIT or self._jumped
                self.stepped += 1
        if self.auto and self.due:
            self.start_reconverge()

    def _number(self, key: object, prior: bool) -> int:
        """The index of ``key``, a new parameter at 0 (with the prior's curvature)."""
        i = self._index.get(key)
        if i is not None:
            return i
        i = len(self.keys)
        self.keys.append(key)
        self._index[key] = i
        self.theta = np.append(self.theta, 0.0)
        grown = np.zeros((i + 1, i + 1))
        grown[:i, :i] = self.cov
        # The prior's virtual draws at 0: curvature PRIOR_GAMES / 4, no gradient.
        grown[i, i] = 4.0 / PRIOR_GAMES if prior else 1.0
        self.cov = grown
        return i

    def _step(self, match: Match) -> float:
        """The rank-k update and Newton step for one match; the largest move."""
        _one_blas_thread()
        values = {key: float(self.theta[i]) for key, i in self._index.items()}
        keys, grad, info = pl.match_derivatives(match, values, self.ties)
        where = np.array([self._number(key, key is not None) for key in keys], np.intp)
        u = self.cov[:, where]
        w = u[where]
        shrink = np.linalg.solve(np.eye(len(where)) + info @ w, info)
        # In place through a kept buffer: a fresh p x p temporary costs as much as the
        # product (page faults on 8 MB at p = 1,000).
        if self._scratch.shape != self.cov.shape:
            self._scratch = np.empty_like(self.cov)
        np.matmul(u @ shrink, u.T, out=self._scratch)
        np.subtract(self.cov, self._scratch, out=self.cov)
        step = self.cov[:, where] @ grad
        self.theta += step
        self.version += 1
        return float(np.abs(step).max()) if len(step) else 0.0

    def reconverge(self, start: dict[object, float] | None = None) -> None:
        """Fit every match fully (Newton's method to the end, from the current point or
        ``start``), replace the kept fit with it, and step in the matches added meanwhile."""
        with self._lock:
            upto = len(self.matches)
            matches = self.matches[:upto]
            raw = dict(zip(self.keys, self.theta.tolist(), strict=True)) if start is None else start
        _one_blas_thread()
        fitted = pl.fit(matches, PRIOR_GAMES, start=pl.PLFit[int](raw=raw))
        with self._lock:
            self.keys = list(fitted.raw)
            self._index = {key: i for i, key in enumerate(self.keys)}
            self.theta = np.array(list(fitted.raw.values()), np.float64)
            covariance = fitted.covariance
            self.cov = np.zeros((0, 0)) if covariance is None else covariance.copy()
            self.ties = None in fitted.raw  # not for matches all tied (delta infinite)
            self._waiting_tie = self._jumped = False
            self.stepped = 0
            self.refits += 1
            self.version += 1
            for match in self.matches[upto:]:
                self._step(match)
                self.stepped += 1

    def start_reconverge(self) -> None:
        """:meth:`reconverge` in a thread, unless one is running (it goes on while the
        fit is due, so a match added meanwhile is not left waiting)."""
        with self._lock:
            if self._running is not None:
                return
            self._running = threading.Thread(
                target=self._reconverge_while_due, name="niwa-pl-refit", daemon=True)
            self._running.start()

    def _reconverge_while_due(self) -> None:
        try:
            while True:
                self.reconverge()
                with self._lock:  # start_reconverge sees either this thread or none
                    if not self.due:
                        self._running = None
                        return
        except Exception:  # a failed refit leaves the one-step fit; the next add retries
            log.exception("plackett_luce_refit_failed", matches=len(self.matches))
            with self._lock:
                self._running = None

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a running re-convergence (tests, benchmarks)."""
        with self._lock:
            running = self._running
        if running is not None:
            running.join(timeout)

    def ratings(self, shown: Collection[int], base: float = BASE) -> dict[int, Estimate]:
        """The shown bots' Elo, shifted so that their mean is ``base``, each interval
        that of the bot against that mean (a shown bot without a match is left out)."""
        with self._lock:
            rows = [(bot, self._index[bot]) for bot in shown if bot in self._index]
            if not rows:
                return {}
            where = np.array([i for _, i in rows], np.intp)
            _one_blas_thread()
            # The variance of lambda_i - mean(lambda of the shown), the board's mean being
            # base: C_ii - 2 (C m)_i + m'C m with m = 1/n on the shown, one pass over C.
            mean_of = np.zeros(len(self.theta))
            mean_of[where] = 1.0 / len(where)
            spread = self.cov @ mean_of
            centred = (np.diagonal(self.cov)[where] - 2.0 * spread[where]
                       + float(mean_of @ spread)).clip(min=0.0)  # fmt: skip
            strengths = self.theta[where]
        shift = float(strengths.mean())
        return {
            bot: Estimate(base + (s - shift) / SCALE, Z95 * math.sqrt(v) / SCALE)
            for (bot, _), s, v in zip(rows, strengths.tolist(), centred.tolist(), strict=True)
        }

    def seat_effects(self) -> tuple[SeatEffect, ...]:
        """Every seat effect against seat 0, by player count and seat, with its interval."""
        with self._lock:
            found = []
            for key, i in self._index.items():
                if isinstance(key, tuple):
                    players, seat = key
                    sd = math.sqrt(max(float(self.cov[i, i]), 0.0))
                    effect = Estimate(float(self.theta[i]) / SCALE, Z95 * sd / SCALE)
                    found.append(SeatEffect(int(players), int(seat), effect))
        return tuple(sorted(found, key=lambda s: (s.players, s.seat)))
