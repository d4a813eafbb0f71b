"""Plackett-Luce ratings over full finishing orders, with ties and a per-seat effect.

The model, its maximum-likelihood fit and a sampler drawing orders from it. The
leaderboard keeps a fit between reads and updates it match by match
(:mod:`niwa.ladder.kept_pl`).

The model (Turner et al.'s generalisation of Plackett-Luce to ties, with Davidson's
tie weight and one tie parameter). A player in a match of n seats has the log-strength

    x = lambda[bot] + sigma[n, seat]        (sigma[n, 0] = 0)

and a match is read as its places from first to last: at each stage the players still
unplaced, R, and the set T of those sharing the next place. T is chosen among all
non-empty subsets of R with probability

    w(T) = delta^(|T|-1) * exp(mean of x_i over i in T)
    P(T | R) = w(T) / sum of w(S) over the non-empty S ⊆ R

(the geometric mean of the strengths of a tied set, each player beyond the first
multiplying the weight by delta). A match's likelihood is the product over its stages;
the stage that leaves one player is certain. Two players: P(i first) = a_i / (a_i + a_j
+ delta sqrt(a_i a_j)), P(tie) = delta sqrt(a_i a_j) / (the same), which is Davidson
(1970); without ties (delta = 0) it is plain Plackett-Luce. ``log delta`` is fitted
only if the matches hold a tie; otherwise ties are impossible and it is left out.

``ties="breslow"`` reads a tie as Breslow's rule in survival analysis does (and as
Hunter's 2004 MM algorithm for Plackett-Luce does): each of the k players of a tied set
T counts as chosen first from all of R, P = prod over T of a_i / (sum over R of a)^k.
It has no tie parameter and no probability for a tie: kept for comparison
(docs/ladder.md, "Plackett-Luce").

Each stage is a choice among sets whose utility is linear in the parameters, so the
log-likelihood's gradient is (chosen features - their expectation) and its exact
information is the features' covariance: Newton's method with the exact Hessian,
damped by halving a step that lowers the likelihood. Like :mod:`niwa.ladder.mle`,
``prior_games`` virtual draws per bot (and per seat effect) against strength 0 keep a
bot that won or lost everything finite. Ratings are on the Elo scale, ``BASE + lambda /
SCALE``, shifted so that their mean is ``BASE``; intervals are ±Z95 standard errors
from the observed information, a bot's against the mean of all bots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Generic, Literal

import numpy as np
import numpy.typing as npt

from niwa.ladder.elo import BASE, SCALE, Z95, BotId, Estimate

#: A match as its seats: (bot, seat, place), seats 0..n-1, place 0 first, equal = tie.
Seat = tuple[BotId, int, int]

Vector = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]
Indices = npt.NDArray[np.intp]

MAX_SEATS = 8  # 2^n - 1 sets per stage: 255 at 8 seats
MAX_ITERATIONS = 100

#: How a shared place is read: "davidson" (the model above, the default) or "breslow"
#: (each tied player as if chosen first from all those left, no tie parameter).
TieRule = Literal["davidson", "breslow"]


@dataclass(frozen=True)
class Tie:
    """The fitted tie parameter delta and its 95 % interval (from log delta's)."""

    delta: float
    low: float
    high: float


@dataclass
class PLFit(Generic[BotId]):
    """One Plackett-Luce fit: Elo-scale ratings and seat effects with 95 % intervals.

    ``seats[n, s]`` is seat s's effect in n-seat matches in Elo points against seat 0
    (positive: an advantage); ``tie`` is None when the matches held no tie. ``raw``:
    the parameters as fitted (natural-log strengths before the shift to the mean, seat
    effects, log delta under the key None), what a later fit over a few more matches
    starts from."""

    ratings: dict[BotId, Estimate] = field(default_factory=dict)
    seats: dict[tuple[int, int], Estimate] = field(default_factory=dict)
    tie: Tie | None = None
    log_likelihood: float = 0.0
    iterations: int = 0
    converged: bool = True
    matches: int = 0
    raw: dict[object, float] = field(default_factory=dict)
    #: The inverse of the information at ``raw`` (rows and columns in ``raw``'s order),
    #: what :mod:`niwa.ladder.kept_pl` updates match by match.
    covariance: Matrix | None = field(default=None, repr=False)


@cache
def _sets(n: int) -> tuple[Indices, Matrix, Matrix]:
    """The non-empty subsets of n seats as bitmasks, their features (1/|T| on each
    member, |T| - 1 on log delta) and each feature vector's outer product, flattened."""
    bits = np.arange(1, 1 << n, dtype=np.intp)
    members = ((bits[:, None] >> np.arange(n)) & 1).astype(np.float64)
    size = members.sum(axis=1)
    features = np.hstack([members / size[:, None], (size - 1.0)[:, None]])
    outer = np.einsum("ki,kj->kij", features, features).reshape(len(bits), -1)
    return bits, features, outer


@dataclass
class _Block:
    """The matches of one player count n, as arrays the fit reads.

    ``where[m]``: each seat's bot index, then each seat's seat-effect index (the dummy
    for seat 0), then log delta's (the dummy without ties); ``chosen[m, t]`` the set
    placed at stage t (-1 after the last), ``eligible[t]`` which sets stage t allows;
    ``cells`` each pair of ``where``'s columns as a cell of the flattened information;
    ``count[:, t]`` how many times stage t's choice counts (Breslow: the tied players)."""

    n: int
    where: Indices
    chosen: Indices
    eligible: list[npt.NDArray[np.bool_]]
    cells: Indices
    count: Matrix


def _validate(match: Sequence[Seat[BotId]]) -> None:
    n = len(match)
    if not 2 <= n <= MAX_SEATS:
        raise ValueError(f"a match has 2 to {MAX_SEATS} seats, this one {n}: drop it or split it")
    if sorted(seat for _, seat, _ in match) != list(range(n)):
        seats = [s for _, s, _ in match]
        raise ValueError(f"a match's seats are 0..{n - 1} once each, got {seats}")
    if any(place < 0 for _, _, place in match):
        raise ValueError("places are 0 (first) or more")


def dense_ranks(places: Sequence[int]) -> list[int]:
    """Places renumbered 0, 1, 2, ... in order, equal places kept equal."""
    order = {p: i for i, p in enumerate(sorted(set(places)))}
    return [order[p] for p in places]


class _Data(Generic[BotId]):
    """The matches numbered: bots, seat effects, tie parameter, blocks per count."""

    def __init__(
        self,
        matches: Sequence[Sequence[Seat[BotId]]],
        rule: TieRule = "davidson",
        tie_parameter: bool = False,
    ) -> None:
        if rule not in ("davidson", "breslow"):
            raise ValueError(f"ties are read by 'davidson' or 'breslow', not {rule!r}")
        self.bots: list[BotId] = []
        index: dict[BotId, int] = {}
        by_count: dict[int, list[Sequence[Seat[BotId]]]] = {}
        self.ties = False
        for match in matches:
            _validate(match)
            for bot, _, _ in match:
                if bot not in index:
                    index[bot] = len(self.bots)
                    self.bots.append(bot)
            places = [p for _, _, p in match]
            self.ties = self.ties or len(set(places)) < len(places)
            by_count.setdefault(len(match), []).append(match)
        self.matches = len(matches)
        self.seat_keys = [(n, s) for n in sorted(by_count) for s in range(1, n)]
        # ``tie_parameter``: these matches are part of a fit that has log delta (so a
        # match without a tie still had ties among its possible outcomes).
        self.ties = (self.ties or tie_parameter) and rule == "davidson"  # Breslow: none
        self.size = len(self.bots) + len(self.seat_keys) + (1 if self.ties else 0)
        dummy = self.size  # a parameter fixed at 0: seat 0's effect, log delta without ties
        seat_index = {key: len(self.bots) + i for i, key in enumerate(self.seat_keys)}
        tie_index = self.size - 1 if self.ties else dummy
        self.blocks: list[_Block] = []
        for n, group in sorted(by_count.items()):
            bits, _, _ = _sets(n)
            where = np.empty((len(group), 2 * n + 1), np.intp)
            ranks = np.empty((len(group), n), np.intp)
            for m, match in enumerate(group):
                by_seat = sorted(match, key=lambda s: s[1])
                where[m, :n] = [index[bot] for bot, _, _ in by_seat]
                where[m, n:2 * n] = [dummy] + [seat_index[n, s] for s in range(1, n)]
                ranks[m] = dense_ranks([p for _, _, p in by_seat])
            where[:, 2 * n] = tie_index
            seat_bits = 1 << np.arange(n)
            chosen = np.full((len(group), n), -1, np.intp)
            count = np.ones((len(group), n))
            eligible = []
            singles = (bits & (bits - 1)) == 0
            for t in range(n):
                placed = ((ranks == t) * seat_bits).sum(axis=1)
                left = ((ranks >= t) * seat_bits).sum(axis=1)
                chosen[:, t] = np.where(placed > 0, placed - 1, -1)  # set T is row T - 1
                if rule == "breslow":
                    count[:, t] = (ranks == t).sum(axis=1)
                allowed = (bits[None, :] & ~left[:, None]) == 0
                eligible.append(allowed if self.ties else allowed & singles[None, :])
            cells = (where[:, :, None] * (self.size + 1) + where[:, None, :]).ravel()
            self.blocks.append(_Block(n, where, chosen, eligible, cells, count))


def _derivatives(
    data: _Data[BotId], theta: Vector, prior_games: float
) -> tuple[float, Vector, Matrix]:
    """The log-posterior (likelihood plus the virtual draws), its gradient and its
    observed information (minus the Hessian), all exact."""
    size = data.size
    extended = np.append(theta, 0.0)
    grad = np.zeros(size + 1)
    info = np.zeros((size + 1) * (size + 1))
    ll = 0.0
    for block in data.blocks:
        n, where = block.n, block.where
        _, features, outer = _sets(n)
        # Each seat's x, then log delta: what a set's utility is linear in.
        local = np.hstack([extended[where[:, :n]] + extended[where[:, n:2 * n]],
                           extended[where[:, 2 * n:]]])
        utility = local @ features.T
        rows = len(where)
        grad_local = np.zeros((rows, n + 1))
        second = np.zeros_like(utility)
        info_local = np.zeros((rows, n + 1, n + 1))
        for t in range(n - 1):  # the last stage leaves one set: certain
            picked = block.chosen[:, t]
            live = picked >= 0
            if not live.any():
                break
            # A match already over takes every set, to stay finite; its p is dropped.
            u = np.where(block.eligible[t] | ~live[:, None], utility, -np.inf)
            top = u.max(axis=1)
            p = np.exp(u - top[:, None])
            total = p.sum(axis=1)
            p /= total[:, None]
            p[~live] = 0.0
            safe = np.where(live, picked, 0)
            # Davidson: the chosen set once. Breslow: each of its k players as a single
            # choice from all of R (k times the mean x, k times the singles' spread).
            k = block.count[:, t]
            picked_utility = utility[np.arange(rows), safe]
            ll += float(np.sum((k * (picked_utility - top - np.log(total)))[live]))
            mean = p @ features
            grad_local += k[:, None] * (np.where(live[:, None], features[safe], 0.0) - mean)
            second += k[:, None] * p
            info_local -= k[:, None, None] * mean[:, :, None] * mean[:, None, :]
        info_local += (second @ outer).reshape(rows, n + 1, n + 1)
        # Seat i's x counts for its bot and its seat effect: each local entry goes to
        # both (column i of ``where`` and column n + i), log delta's to column 2n.
        local_of = np.concatenate([np.arange(n), np.arange(n), [n]])
        grad += np.bincount(where.ravel(), grad_local[:, local_of].ravel(), size + 1)
        wide = info_local[:, local_of[:, None], local_of[None, :]]
        info += np.bincount(block.cells, wide.ravel(), (size + 1) * (size + 1))
    info_matrix = info.reshape(size + 1, size + 1)[:size, :size]
    grad = grad[:size]
    anchored = len(data.bots) + len(data.seat_keys)
    if prior_games > 0:
        x = theta[:anchored]
        sig = 1.0 / (1.0 + np.exp(-x))
        ll -= 0.5 * prior_games * float(np.sum(np.logaddexp(0.0, -x) + np.logaddexp(0.0, x)))
        grad[:anchored] += prior_games * (0.5 - sig)
        info_matrix[np.arange(anchored), np.arange(anchored)] += prior_games * sig * (1.0 - sig)
    return ll, grad, info_matrix


def log_likelihood(
    matches: Sequence[Sequence[Seat[BotId]]],
    strengths: dict[BotId, float],
    seat_effects: dict[tuple[int, int], float] | None = None,
    delta: float = 0.0,
    ties: TieRule = "davidson",
) -> float:
    """The model's log-likelihood of ``matches`` at the given natural-log strengths,
    seat effects (missing ones 0) and tie parameter, without any prior."""
    data = _Data(matches, ties)
    effects = seat_effects or {}
    theta = [strengths[bot] for bot in data.bots] + [effects.get(k, 0.0) for k in data.seat_keys]
    if data.ties:
        if delta <= 0:
            raise ValueError("the matches hold a tie: delta must be positive")
        theta.append(math.log(delta))
    return _derivatives(data, np.array(theta, np.float64), 0.0)[0]


def match_derivatives(
    match: Sequence[Seat[BotId]],
    values: dict[object, float],
    tie_parameter: bool,
) -> tuple[list[object], Vector, Matrix]:
    """One match's log-likelihood gradient and information (no prior) at the parameters
    ``values`` (keyed as :attr:`PLFit.raw`; a missing one is 0), over the parameters it
    touches: its bots, its seats' effects and, with ``tie_parameter``, log delta (key
    None). Returns those keys and the two arrays in their order."""
    data = _Data([match], "davidson", tie_parameter)
    keys: list[object] = [*data.bots, *data.seat_keys] + ([None] if data.ties else [])
    theta = np.array([values.get(key, 0.0) for key in keys], np.float64)
    _, grad, info = _derivatives(data, theta, 0.0)
    return keys, grad, info


def fit(
    matches: Iterable[Sequence[Seat[BotId]]],
    prior_games: float = 1.0,
    base: float = BASE,
    start: PLFit[BotId] | None = None,
    ties: TieRule = "davidson",
) -> PLFit[BotId]:
    """The maximum-likelihood Plackett-Luce fit of ``matches`` (each a sequence of (bot,
    seat, place)), bot strengths shared across player counts, a seat effect per player
    count and seat, and one tie parameter.

    ``start``: a fit of most of these matches; Newton's method starts from its
    parameters (a bot or seat not in it from 0), so a few more matches cost a step or
    two rather than a fit from zero. ``ties``: how a shared place is read (the module's
    docstring)."""
    matches = list(matches)
    data = _Data(matches, ties)
    if not data.bots:
        return PLFit()
    if data.ties and all(len({p for _, _, p in m}) == 1 for m in matches):
        return _all_tied(data, prior_games, base)
    theta = np.zeros(data.size)
    if start is not None:
        keys: list[object] = [*data.bots, *data.seat_keys] + ([None] if data.ties else [])
        theta[:] = [start.raw.get(key, 0.0) for key in keys]
    bots = len(data.bots)
    gauge = np.zeros((data.size, data.size))
    if prior_games <= 0:  # no anchor: everyone +x changes nothing, fix the mean at 0
        gauge[:bots, :bots] = 1.0 / bots
    ll, grad, info = _derivatives(data, theta, prior_games)
    converged = False
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        step = np.linalg.solve(info + gauge, grad)
        for _ in range(60):  # halve a step that lowers the likelihood
            new_ll, new_grad, new_info = _derivatives(data, theta + step, prior_games)
            if new_ll >= ll - 1e-12 * abs(ll):
                break
            step *= 0.5
        theta += step
        ll, grad, info = new_ll, new_grad, new_info
        if float(np.abs(step).max()) < 1e-10:
            converged = True
            break
    covariance = np.linalg.inv(info + gauge).astype(np.float64)
    return _report(data, theta, covariance, ll, iterations, converged, base)


def _all_tied(data: _Data[BotId], prior_games: float, base: float) -> PLFit[BotId]:
    """The fit when every match is one shared place: the likelihood grows without
    bound as delta does (a complete tie becomes certain whatever the strengths), and
    there the matches say nothing about the bots or seats, so the fit is the prior's:
    every strength and seat effect 0, delta infinite."""
    if prior_games <= 0:
        raise ValueError(
            "every match is a complete tie: the fit needs prior_games > 0 to say anything"
        )
    data.ties = False  # no finite log delta: reported as infinite below
    data.size -= 1
    anchored = data.size
    covariance = np.diag(np.full(anchored, 4.0 / prior_games))  # sigma(0)(1 - sigma(0)) = 1/4
    fitted = _report(data, np.zeros(anchored), covariance, 0.0, 0, True, base)
    fitted.tie = Tie(math.inf, math.inf, math.inf)
    return fitted


def _report(
    data: _Data[BotId], theta: Vector, covariance: Matrix, ll: float,
    iterations: int, converged: bool, base: float,
) -> PLFit[BotId]:
    bots = len(data.bots)
    strengths = theta[:bots]
    block = covariance[:bots, :bots]
    # The variance of lambda_i - mean(lambda): a shift of everyone is no one's rating.
    centred = (np.diag(block) - 2.0 * block.mean(axis=1) + block.mean()).clip(min=0.0)
    shift = float(strengths.mean())
    ratings = {
        bot: Estimate(elo=base + (s - shift) / SCALE, ci95=Z95 * math.sqrt(v) / SCALE)
        for bot, s, v in zip(data.bots, strengths.tolist(), centred.tolist(), strict=True)
    }
    seats: dict[tuple[int, int], Estimate] = {}
    for i, key in enumerate(data.seat_keys):
        j = bots + i
        seats[key] = Estimate(
            elo=float(theta[j]) / SCALE,
            ci95=Z95 * math.sqrt(max(float(covariance[j, j]), 0.0)) / SCALE,
        )
    tie = None
    if data.ties:
        log_delta, sd = float(theta[-1]), math.sqrt(max(float(covariance[-1, -1]), 0.0))
        half = Z95 * sd
        tie = Tie(math.exp(log_delta), math.exp(log_delta - half), math.exp(log_delta + half))
    keys: list[object] = [*data.bots, *data.seat_keys] + ([None] if data.ties else [])
    raw = dict(zip(keys, theta.tolist(), strict=True))
    return PLFit(ratings, seats, tie, ll, iterations, converged, data.matches, raw, covariance)


def fit_by_player_count(
    matches: Iterable[Sequence[Seat[BotId]]],
    prior_games: float = 1.0,
    base: float = BASE,
    ties: TieRule = "davidson",
) -> dict[int, PLFit[BotId]]:
    """A separate fit on the matches of each player count."""
    groups: dict[int, list[Sequence[Seat[BotId]]]] = {}
    for match in matches:
        groups.setdefault(len(match), []).append(match)
    return {n: fit(group, prior_games, base, ties=ties) for n, group in sorted(groups.items())}


def draw_places(
    strengths: Matrix, log_delta: float | None, rng: np.random.Generator
) -> Indices:
    """Finishing orders drawn from the model, one per row: each seat's x (its bot's
    strength plus its seat's effect) in, each seat's place out (0 first, equal places
    tied). ``log_delta`` None: no ties."""
    x = np.atleast_2d(np.asarray(strengths, np.float64))
    rows, n = x.shape
    bits, features, _ = _sets(n)
    sizes = features[:, n]
    tie_weight = np.where(sizes > 0, sizes * (log_delta or 0.0), 0.0)
    allowed_size = sizes == 0 if log_delta is None else np.ones(len(bits), bool)
    utility = x @ features[:, :n].T + tie_weight
    places = np.zeros((rows, n), np.intp)
    left = np.full(rows, (1 << n) - 1, np.intp)
    place = 0
    while left.any():
        live = left > 0
        allowed = ((bits[None, :] & ~left[:, None]) == 0) & allowed_size
        allowed[~live, 0] = True  # a finished row draws a set it never uses
        u = np.where(allowed, utility, -np.inf)
        p = np.exp(u - u.max(axis=1, keepdims=True))
        cumulative = np.cumsum(p, axis=1)
        draw = rng.random(rows) * cumulative[:, -1]
        pick = bits[np.minimum((cumulative < draw[:, None]).sum(axis=1), len(bits) - 1)]
        pick = np.where(live, pick, 0)
        seats = (pick[:, None] >> np.arange(n)) & 1 == 1
        places[seats] = place
        left &= ~pick
        place += 1
    return places
