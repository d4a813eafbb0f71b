"""The Plackett-Luce fit (niwa/ladder/plackett_luce.py): hand-computed cases, an
independent reference fit with scipy, and the coverage of its 95 % intervals."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from niwa.ladder import plackett_luce as pl
from niwa.ladder.elo import BASE, SCALE

Match = list[tuple[str, int, int]]
FIXTURE = Path(__file__).parent / "fixtures" / "plackett_luce_matches.json"


def two_seats(first: str, second: str, outcome: str, times: int) -> list[Match]:
    """``times`` matches, ``first`` at seat 0: outcome 'first', 'second' or 'tie'."""
    places = {"first": (0, 1), "second": (1, 0), "tie": (0, 0)}[outcome]
    return [[(first, 0, places[0]), (second, 1, places[1])] for _ in range(times)]


def test_two_bots_two_seats_match_the_closed_form() -> None:
    # A at seat 0 wins 3 of 4; B at seat 0 wins 2 of 4. With x1 = its bot + seat 1's
    # effect s: A - B - s = ln 3 and B - A - s = 0, so A - B = ln3 / 2 and s = -ln3 / 2.
    matches = (two_seats("A", "B", "first", 3) + two_seats("A", "B", "second", 1)
               + two_seats("B", "A", "first", 2) + two_seats("B", "A", "second", 2))
    fit = pl.fit(matches, prior_games=0)
    assert fit.converged and fit.tie is None
    gap = math.log(3) / 2 / SCALE
    assert fit.ratings["A"].elo == pytest.approx(BASE + gap / 2, abs=1e-6)
    assert fit.ratings["B"].elo == pytest.approx(BASE - gap / 2, abs=1e-6)
    assert fit.seats[2, 1].elo == pytest.approx(-math.log(3) / 2 / SCALE, abs=1e-6)


def test_three_bot_order_has_the_hand_computed_likelihood() -> None:
    # Strengths A 2, B 1 (x2 at seat 1), C 1/2; B first then A then C:
    # 2/(2 + 2 + 1/2) * 2/(2 + 1/2) = 16/45.
    match = [("A", 0, 1), ("B", 1, 0), ("C", 2, 2)]
    strengths = {"A": math.log(2), "B": 0.0, "C": math.log(0.5)}
    value = pl.log_likelihood([match], strengths, {(3, 1): math.log(2)})
    assert value == pytest.approx(math.log(16 / 45), abs=1e-12)


def test_a_tie_has_davidsons_probability() -> None:
    # Two players, strengths 4 and 1, delta 1/2: 1/2 * sqrt(4) / (4 + 1 + 1/2 * sqrt(4)).
    match = [("A", 0, 0), ("B", 1, 0)]
    value = pl.log_likelihood([match], {"A": math.log(4), "B": 0.0}, delta=0.5)
    assert value == pytest.approx(math.log(1 / 6), abs=1e-12)


def test_a_tie_for_first_of_three_weighs_every_set() -> None:
    # A and B tie for first ahead of C: the first stage chooses among every non-empty
    # set of {A, B, C} (a tie of k weighs delta^(k-1) times the geometric mean), then
    # C alone is left.
    a, b, c, delta = 4.0, 1.0, 2.0, 0.5
    weights = (a + b + c + delta * (math.sqrt(a * b) + math.sqrt(a * c) + math.sqrt(b * c))
               + delta**2 * (a * b * c) ** (1 / 3))
    match = [("A", 0, 0), ("B", 1, 0), ("C", 2, 1)]
    strengths = {"A": math.log(a), "B": math.log(b), "C": math.log(c)}
    value = pl.log_likelihood([match], strengths, delta=delta)
    assert value == pytest.approx(math.log(delta * math.sqrt(a * b) / weights), abs=1e-12)


def test_breslows_rule_counts_each_tied_player_as_chosen_from_all_left() -> None:
    # A and B tie for first ahead of C: a/(a+b+c) * b/(a+b+c), then C alone.
    a, b, c = 4.0, 1.0, 2.0
    match = [("A", 0, 0), ("B", 1, 0), ("C", 2, 1)]
    strengths = {"A": math.log(a), "B": math.log(b), "C": math.log(c)}
    value = pl.log_likelihood([match], strengths, ties="breslow")
    assert value == pytest.approx(math.log(a * b / (a + b + c) ** 2), abs=1e-12)


def test_breslows_rule_fits_no_tie_parameter() -> None:
    matches = two_seats("A", "B", "tie", 2) + two_seats("A", "B", "first", 3)
    fit = pl.fit(matches, ties="breslow")
    assert fit.converged and fit.tie is None and None not in fit.raw


def test_ties_and_a_seat_effect_match_the_closed_form() -> None:
    # Equal bots, each at seat 0 as often: seat 0 wins 4, seat 1 wins 2, 2 ties. The
    # frequencies are the model's: e^s = 2/4 and delta e^(s/2) = 2/4, so delta = sqrt(1/2).
    matches = []
    for first, second in (("A", "B"), ("B", "A")):
        matches += (two_seats(first, second, "first", 2) + two_seats(first, second, "second", 1)
                    + two_seats(first, second, "tie", 1))
    fit = pl.fit(matches, prior_games=0)
    assert fit.tie is not None
    assert fit.tie.delta == pytest.approx(math.sqrt(0.5), abs=1e-6)
    assert fit.tie.low < fit.tie.delta < fit.tie.high
    assert fit.seats[2, 1].elo == pytest.approx(math.log(0.5) / SCALE, abs=1e-6)
    assert fit.ratings["A"].elo == pytest.approx(BASE, abs=1e-6)


def draw_ladder(
    rng: np.random.Generator, strengths: np.ndarray, effects: np.ndarray,
    log_delta: float | None, matches: int,
) -> list[Match]:
    """Matches drawn from the model: each a random table of distinct bots."""
    n, bots = len(effects), len(strengths)
    who = np.array([rng.choice(bots, n, replace=n > bots) for _ in range(matches)])
    places = pl.draw_places(strengths[who] + effects, log_delta, rng)
    return [
        [(f"bot{b}", seat, place) for seat, (b, place) in enumerate(zip(row, order, strict=True))]
        for row, order in zip(who.tolist(), places.tolist(), strict=True)
    ]


def test_a_seat_effect_is_recovered_from_synthetic_matches() -> None:
    rng = np.random.default_rng(4)
    effects = np.array([0.0, -0.2, -0.4, -0.6])
    matches = draw_ladder(rng, rng.normal(0, 0.5, 20), effects, None, 5000)
    fit = pl.fit(matches)
    for seat in (1, 2, 3):
        estimate = fit.seats[4, seat]
        assert abs(estimate.elo - effects[seat] / SCALE) <= estimate.ci95


def test_an_unbeaten_bot_stays_finite() -> None:
    fit = pl.fit(two_seats("A", "B", "first", 5) + two_seats("B", "A", "second", 5))
    assert fit.converged
    assert BASE < fit.ratings["A"].elo < BASE + 400
    assert fit.ratings["A"].ci95 < 1000


def test_each_player_count_is_fitted_on_its_own_matches() -> None:
    rng = np.random.default_rng(5)
    strengths = rng.normal(0, 0.5, 6)
    matches = (draw_ladder(rng, strengths, np.zeros(2), None, 200)
               + draw_ladder(rng, strengths, np.zeros(3), None, 200))
    pooled = pl.fit(matches)
    by_count = pl.fit_by_player_count(matches)
    assert set(pooled.seats) == {(2, 1), (3, 1), (3, 2)}
    assert set(by_count) == {2, 3}
    assert set(by_count[2].seats) == {(2, 1)} and by_count[2].matches == 200
    assert set(by_count[3].seats) == {(3, 1), (3, 2)} and by_count[3].matches == 200


def test_a_fit_started_from_the_last_one_reaches_the_same_ratings() -> None:
    rng = np.random.default_rng(6)
    matches = draw_ladder(rng, rng.normal(0, 0.5, 30), np.array([0.0, -0.2, -0.3]),
                          math.log(0.4), 2000)
    last = pl.fit(matches[:-20])
    cold = pl.fit(matches)
    warm = pl.fit(matches, start=last)
    assert warm.converged and warm.iterations < cold.iterations
    for bot, estimate in cold.ratings.items():
        assert warm.ratings[bot].elo == pytest.approx(estimate.elo, abs=1e-6)
        assert warm.ratings[bot].ci95 == pytest.approx(estimate.ci95, abs=1e-6)
    assert warm.tie is not None and cold.tie is not None
    assert warm.tie.delta == pytest.approx(cold.tie.delta, abs=1e-9)


def test_matches_that_are_all_complete_ties_leave_the_prior_and_an_infinite_delta() -> None:
    # Every match one shared place: as delta grows each becomes certain whatever the
    # strengths, so the likelihood has no finite maximum and says nothing of the bots.
    matches = [[("A", 0, 0), ("B", 1, 0)], [("A", 0, 0), ("B", 1, 0), ("C", 2, 0)]]
    fit = pl.fit(matches)
    assert fit.tie == pl.Tie(math.inf, math.inf, math.inf)
    assert {bot: e.elo for bot, e in fit.ratings.items()} == {"A": BASE, "B": BASE, "C": BASE}
    assert all(e.elo == 0.0 and 0 < e.ci95 < math.inf for e in fit.seats.values())
    with pytest.raises(ValueError, match="every match is a complete tie"):
        pl.fit(matches, prior_games=0)


def test_a_match_without_seat_zero_is_refused_with_its_seats() -> None:
    with pytest.raises(ValueError, match=r"seats are 0\.\.1 once each, got \[1, 2\]"):
        pl.fit([[("A", 1, 0), ("B", 2, 1)]])


def set_utility(x: dict[int, float], group: Sequence[int], log_delta: float) -> float:
    """A set's log weight: its members' mean x, log delta for each member past one."""
    return sum(x[s] for s in group) / len(group) + (len(group) - 1) * log_delta


def reference_log_posterior(
    matches: Sequence[Match], bots: list[str],
    seat_keys: list[tuple[int, int]], theta: np.ndarray, prior_games: float,
) -> float:
    """Written apart from the module: a loop over each match's stages and, at each,
    over every set of the players left (itertools), plus the virtual draws."""
    strength = dict(zip(bots, theta[: len(bots)], strict=True))
    effect = dict(zip(seat_keys, theta[len(bots): -1], strict=True))
    log_delta = theta[-1]
    total = 0.0
    for match in matches:
        n = len(match)
        x = {seat: strength[bot] + effect.get((n, seat), 0.0) for bot, seat, _ in match}
        place_of = {seat: place for _, seat, place in match}
        left = set(place_of)
        for place in sorted(set(place_of.values())):
            if len(left) == 1:
                break
            tied = [s for s in left if place_of[s] == place]
            every = [set_utility(x, g, log_delta) for k in range(1, len(left) + 1)
                     for g in itertools.combinations(sorted(left), k)]
            total += set_utility(x, tied, log_delta) - float(np.logaddexp.reduce(every))
            left -= set(tied)
    anchored = theta[: len(bots) + len(seat_keys)]
    draws = np.logaddexp(0, anchored) + np.logaddexp(0, -anchored)
    total -= 0.5 * prior_games * float(np.sum(draws))
    return total


def test_the_fit_reproduces_a_separately_written_reference() -> None:
    matches: list[Match] = [[(b, s, p) for b, s, p in m] for m in json.loads(FIXTURE.read_text())]
    bots = sorted({bot for match in matches for bot, _, _ in match})
    seat_keys = [(n, s) for n in (3, 4) for s in range(1, n)]
    start = np.zeros(len(bots) + len(seat_keys) + 1)
    found = minimize(
        lambda t: -reference_log_posterior(matches, bots, seat_keys, t, 1.0),
        start, method="BFGS", jac="3-point", options={"gtol": 1e-9, "maxiter": 2000},
    )
    theta = found.x
    fit = pl.fit(matches, prior_games=1.0)
    strengths = theta[: len(bots)] - theta[: len(bots)].mean()
    for bot, value in zip(bots, strengths, strict=True):
        assert (fit.ratings[bot].elo - BASE) * SCALE == pytest.approx(value, abs=1e-6)
    for key, value in zip(seat_keys, theta[len(bots): -1], strict=True):
        assert fit.seats[key].elo * SCALE == pytest.approx(value, abs=1e-6)
    assert fit.tie is not None
    assert math.log(fit.tie.delta) == pytest.approx(theta[-1], abs=1e-6)
    assert fit.log_likelihood == pytest.approx(-found.fun, abs=1e-8)


#: Intervals checked per case, at least: ladders of more seats have more seat effects
#: each (seats - 1), so fewer ladders do (a 6-seat fit costs about three 2-seat fits).
#: At 95 % coverage, 1,000 intervals have a standard error of 0.7 points.
SEAT_INTERVALS = 1000
RATING_INTERVALS = 1400
BOTS = 4
MATCHES = 60


@pytest.mark.parametrize("log_delta", [None, math.log(0.5)], ids=["no ties", "ties"])
@pytest.mark.parametrize("seat_effects", [False, True], ids=["no seat effect", "seat effect"])
@pytest.mark.parametrize("seats", [2, 4, 6])
def test_95_percent_intervals_cover_the_truth_95_percent_of_the_time(
    seats: int, seat_effects: bool, log_delta: float | None,
) -> None:
    """Ladders of 4 bots and 60 matches drawn from the model (ties drawn from its tie
    model), enough for 1,000 seat effects and 1,400 ratings; every bot's rating interval
    and every seat effect's is checked."""
    rng = np.random.default_rng(1000 * seats + 10 * seat_effects + (log_delta is not None))
    effects = np.linspace(0.0, -0.4, seats) if seat_effects else np.zeros(seats)
    rating_hits = rating_total = seat_hits = seat_total = 0
    for _ in range(max(-(-SEAT_INTERVALS // (seats - 1)), RATING_INTERVALS // BOTS)):
        strengths = rng.normal(0, 0.5, BOTS)
        fit = pl.fit(draw_ladder(rng, strengths, effects, log_delta, MATCHES))
        for bot, estimate in fit.ratings.items():
            truth = BASE + (strengths[int(bot[3:])] - strengths.mean()) / SCALE
            rating_hits += abs(estimate.elo - truth) <= estimate.ci95
            rating_total += 1
        for seat in range(1, seats):
            estimate = fit.seats[seats, seat]
            seat_hits += abs(estimate.elo - effects[seat] / SCALE) <= estimate.ci95
            seat_total += 1
    assert 0.93 <= rating_hits / rating_total <= 0.97
    assert 0.93 <= seat_hits / seat_total <= 0.97
