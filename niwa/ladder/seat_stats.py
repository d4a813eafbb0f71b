"""A bot's results by seat, by player count and against each opponent it shared a
table with, with 95 % intervals; and the kingmaker check (docs/ladder.md, "Seats and
tables").

Pure arithmetic over the store's totals (:mod:`niwa.ladder.store.tables`): places count
from 0 here and from 1 in what a page shows.

The kingmaker check asks, for the bot A and each opponent B, whether how often A
finishes ahead of B depends on a third bot C being at the table: over A's tables of 3
seats or more where A and B did not finish level, a 2 x 2 table (C present or not, A
ahead or behind) and Pearson's chi-squared test of independence (1 degree of freedom).
A table is tested only when each of its expected counts is at least
:data:`MIN_EXPECTED`; the p-values are Bonferroni-corrected over every (B, C) tested,
and the bot is flagged when the smallest corrected p-value is below :data:`ALPHA`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from niwa.ladder.elo import Z95

#: The significance level of the kingmaker flag, after the correction.
ALPHA = 0.01
#: The least expected count in each cell of a 2 x 2 table for its chi-squared test.
MIN_EXPECTED = 5.0
#: The newest tables of 3 seats or more the check reads per bot (a bounded read).
KINGMAKER_MATCHES = 2000


@dataclass(frozen=True)
class Share:
    """``hits`` of ``n`` and a 95 % Wilson interval (0, 0 for no trial)."""

    hits: float
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else 0.0


def share(hits: float, n: int) -> Share:
    """The Wilson score interval: honest near 0 and 1, where the normal one is not."""
    if n <= 0:
        return Share(hits, 0, 0.0, 0.0)
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Share(hits, n, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Places:
    """A bot's results in some group of matches: mean place from 1 ± 95 %, and its
    first places."""

    matches: int
    mean_place: float
    mean_ci95: float  # inf: fewer than 2 matches
    wins: Share


def places(matches: int, place_sum: int, place_squares: int, firsts: int) -> Places:
    """From the sums the store keeps: a normal interval on the mean place, the sample
    variance from the sum of squares."""
    mean = place_sum / matches
    if matches < 2:
        ci = math.inf
    else:
        variance = max(0.0, (place_squares - matches * mean * mean) / (matches - 1))
        ci = Z95 * math.sqrt(variance / matches)
    return Places(matches, mean + 1, ci, share(firsts, matches))


@dataclass(frozen=True)
class TableRecord:
    """A bot against one opponent over the rated matches they sat at together:
    ``ahead`` counts a level finish as half."""

    other_id: int
    together: int
    ahead_count: int
    level: int
    ahead: Share


def table_record(other_id: int, together: int, ahead: int, level: int) -> TableRecord:
    return TableRecord(other_id, together, ahead, level, share(ahead + level / 2, together))


@dataclass(frozen=True)
class Finding:
    """The most telling (B, C) of a kingmaker check: A's record against ``other`` (B)
    with ``third`` (C) at the table and without."""

    other_id: int
    third_id: int
    ahead_with: int
    decided_with: int
    ahead_without: int
    decided_without: int
    p: float
    p_adjusted: float


@dataclass(frozen=True)
class Kingmaker:
    """``tables``: the matches read; ``tests``: the (B, C) with enough counts."""

    tables: int
    tests: int
    flagged: bool
    strongest: Finding | None


def chi_squared_p(a1: int, b1: int, a0: int, b0: int) -> float | None:
    """Pearson's test of independence of a 2 x 2 table (rows: C present, absent;
    columns: ahead, behind); None when an expected count is under MIN_EXPECTED."""
    rows, cols = (a1 + b1, a0 + b0), (a1 + a0, b1 + b0)
    n = rows[0] + rows[1]
    if n == 0 or min(r * c / n for r in rows for c in cols) < MIN_EXPECTED:
        return None
    statistic = n * (a1 * b0 - b1 * a0) ** 2 / (rows[0] * rows[1] * cols[0] * cols[1])
    return math.erfc(math.sqrt(statistic / 2))  # chi-squared, 1 degree of freedom


def kingmaker(bot_id: int, matches: Iterable[Sequence[tuple[int, int]]]) -> Kingmaker:
    """The check over ``matches`` (each as (bot, place) per seat); tables of fewer than
    3 seats, and those where the bot or an opponent sat twice, say nothing about a
    third party and are left out."""
    totals: dict[int, list[int]] = {}  # B -> [ahead, behind]
    present: dict[tuple[int, int], list[int]] = {}  # (B, C) -> [ahead, behind] with C
    tables = 0
    for match in matches:
        bots = [b for b, _ in match]
        if len(match) < 3 or bots.count(bot_id) != 1 or len(set(bots)) != len(bots):
            continue
        tables += 1
        mine = dict(match)[bot_id]
        for other, place in match:
            if other == bot_id or place == mine:
                continue
            column = 0 if mine < place else 1
            totals.setdefault(other, [0, 0])[column] += 1
            for third in bots:
                if third not in (bot_id, other):
                    present.setdefault((other, third), [0, 0])[column] += 1
    tested: list[tuple[float, tuple[int, int], tuple[int, int, int, int]]] = []
    for (other, third), (a1, b1) in present.items():
        a, b = totals[other]
        p = chi_squared_p(a1, b1, a - a1, b - b1)
        if p is not None:
            tested.append((p, (other, third), (a1, a1 + b1, a - a1, a + b - a1 - b1)))
    if not tested:
        return Kingmaker(tables, 0, False, None)
    p, (other, third), counts = min(tested, key=lambda t: (t[0], t[1]))
    adjusted = min(1.0, p * len(tested))
    finding = Finding(other, third, *counts, p, adjusted)
    return Kingmaker(tables, len(tested), adjusted < ALPHA, finding)
