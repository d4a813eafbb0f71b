"""The provisional rating (niwa/ladder/skill.py): Weng and Lin's Plackett-Luce update
against its formulas worked by hand, and when a bot is provisional."""

from __future__ import annotations

import math

import pytest

from niwa.ladder import schema
from niwa.ladder.skill import (
    BETA,
    KAPPA,
    NEW,
    PROVISIONAL_MATCHES,
    PROVISIONAL_SIGMA,
    Skill,
    information,
    update,
)

#: The paper's c for two new bots: sqrt(sum of sigma^2 + BETA^2 over the seats).
C_NEW = math.sqrt(2 * (350.0**2 + BETA**2))


def test_two_certain_bots_expect_the_elo_score() -> None:
    # 2 BETA^2 = (400 / ln 10)^2: the logistic of the paper is Elo's 1 / (1 + 10^(-d/400))
    c = math.sqrt(2 * BETA**2)
    d = 200.0
    assert 1 / (1 + math.exp(-d / c)) == pytest.approx(1 / (1 + 10 ** (-d / 400)), abs=1e-12)


def test_a_win_between_new_bots_moves_each_by_the_paper_s_formulas() -> None:
    winner, loser = update([NEW, NEW], [0, 1])
    # p = 1/2; winner: Omega = sigma^2/c * (1 - 1/2); loser: -sigma^2/c * 1/2
    step = 350.0**2 / C_NEW / 2
    assert winner.mu == pytest.approx(1500 + step, abs=1e-9)
    assert loser.mu == pytest.approx(1500 - step, abs=1e-9)
    # Delta = gamma * sigma^2/c^2 * 1/4 with gamma = sigma/c, for both seats
    shrunk = 350.0 * math.sqrt(1 - (350.0 / C_NEW) * 350.0**2 / C_NEW**2 / 4)
    assert winner.sigma == pytest.approx(shrunk, abs=1e-9)
    assert loser.sigma == pytest.approx(shrunk, abs=1e-9)
    assert (winner.matches, loser.matches) == (1, 1)


def test_the_figures_worked_by_hand_are_these() -> None:
    # the same numbers written out, so a change to the constants shows here first
    winner, loser = update([NEW, NEW], [0, 1])
    assert (round(winner.mu, 6), round(winner.sigma, 6)) == (1616.761412, 336.754808)
    assert (round(loser.mu, 6), round(loser.sigma, 6)) == (1383.238588, 336.754808)


def test_a_three_seat_order_is_read_place_by_place() -> None:
    seats = [Skill(1600, 200), Skill(1450, 100), Skill(1500, 350)]
    places = [1, 0, 2]
    after = update(seats, places)
    c = math.sqrt(sum(s.sigma**2 + BETA**2 for s in seats))
    e = [math.exp(s.mu / c) for s in seats]
    everyone, last_two = sum(e), e[0] + e[2]
    # seat 0 came second: it lost the first choice (to seat 1) and won the second
    omega0 = -e[0] / everyone + (1 - e[0] / last_two)
    delta0 = e[0] / everyone * (1 - e[0] / everyone) + e[0] / last_two * (1 - e[0] / last_two)
    assert after[0].mu == pytest.approx(1600 + 200.0**2 / c * omega0, abs=1e-9)
    gamma = 200.0 / c
    assert after[0].sigma == pytest.approx(
        200.0 * math.sqrt(1 - gamma * 200.0**2 / c**2 * delta0), abs=1e-9
    )
    # seat 2 came last: it lost both choices; the last term (itself alone) is 1 - 1 = 0
    omega2 = -e[2] / everyone - e[2] / last_two
    assert after[2].mu == pytest.approx(1500 + 350.0**2 / c * omega2, abs=1e-9)


def test_tied_seats_share_each_term_by_the_size_of_their_group() -> None:
    a, b = update([NEW, NEW], [0, 0])
    # each seat: (1 - 1/2)/2 for its own term, -(1/2)/2 for the other's: no move
    assert a.mu == pytest.approx(1500, abs=1e-9)
    assert b.mu == pytest.approx(1500, abs=1e-9)
    # Delta = gamma * sigma^2/c^2 * (1/4 + 1/4) / 2
    assert a.sigma == pytest.approx(
        350.0 * math.sqrt(1 - (350.0 / C_NEW) * 350.0**2 / C_NEW**2 / 4), abs=1e-9
    )


def test_a_tie_with_a_stronger_bot_lifts_the_weaker() -> None:
    weak, strong = update([Skill(1400, 200), Skill(1700, 200)], [0, 0])
    assert weak.mu > 1400
    assert strong.mu < 1700


def test_the_update_matches_openskill_on_a_four_seat_order_with_a_tie() -> None:
    # openskill 6.2.0's PlackettLuce(mu=1500, sigma=350, beta=BETA, kappa=KAPPA, tau=0),
    # run once while writing this module: the independent check of the tie handling
    after = update(
        [Skill(1600, 200), Skill(1450, 100), Skill(1500, 350), Skill(1700, 80)], [0, 1, 1, 2]
    )
    expected = [
        (1660.130183060441, 198.66503991900234),
        (1450.823668815677, 99.84967411987498),
        (1497.6987004067062, 324.9635537586615),
        (1689.9722538307215, 79.91842943974656),
    ]
    for got, (mu, sigma) in zip(after, expected, strict=True):
        assert got.mu == pytest.approx(mu, abs=1e-9)
        assert got.sigma == pytest.approx(sigma, abs=1e-9)


def test_far_apart_ratings_do_not_overflow() -> None:
    winner, loser = update([Skill(90_000, 350), Skill(-90_000, 350)], [1, 0])
    assert math.isfinite(winner.mu) and math.isfinite(loser.mu)
    assert winner.mu < 90_000 and loser.mu > -90_000


def test_sigma_keeps_at_least_kappa_of_its_variance() -> None:
    (a, _) = update([Skill(1500, 5000), Skill(1500, 1)], [1, 0])
    assert a.sigma >= math.sqrt(KAPPA) * 5000 - 1e-9


def test_a_match_needs_two_seats_with_a_place_each() -> None:
    with pytest.raises(ValueError, match="two or more seats"):
        update([NEW], [0])
    with pytest.raises(ValueError, match="one place each"):
        update([NEW, NEW], [0])


def _even_matches_against_a_settled_bot(count: int) -> Skill:
    s = NEW
    for n in range(count):
        s, _ = update([s, Skill(s.mu, 80)], [n % 2, 1 - n % 2])
    return s


def test_a_new_bot_is_provisional() -> None:
    assert NEW.provisional
    assert NEW.sigma > PROVISIONAL_SIGMA


def test_a_bot_stops_being_provisional_after_fifteen_even_matches() -> None:
    assert _even_matches_against_a_settled_bot(14).provisional
    settled = _even_matches_against_a_settled_bot(15)
    assert not settled.provisional
    assert settled.matches == 15


def test_a_bot_that_loses_every_match_stops_being_provisional_after_forty() -> None:
    s = NEW
    for _ in range(PROVISIONAL_MATCHES - 1):
        s, _ = update([s, Skill(1500, 80)], [1, 0])
    assert s.provisional and s.sigma > PROVISIONAL_SIGMA
    s, _ = update([s, Skill(1500, 80)], [1, 0])
    assert s.sigma > PROVISIONAL_SIGMA  # still wide: each loss was expected
    assert not s.provisional


def test_the_migration_s_sigmas_follow_the_update() -> None:
    # the migration that adds the online ratings writes out the variance after k even
    # matches against a settled bot
    (statement,) = [
        s for m in schema.MIGRATIONS if any("CREATE TABLE skills" in s for s in m)
        for s in m if "CASE" in s
    ]
    listed = {
        int(line.split(">=")[1].split()[0]): float(line.split("THEN")[1])
        for line in statement.splitlines()
        if "WHEN games >=" in line
    }
    listed[1] = float(statement.split("ELSE")[1].split()[0])
    for k, variance in listed.items():
        assert _even_matches_against_a_settled_bot(k).sigma ** 2 == pytest.approx(variance, abs=0.5)


def test_an_even_game_teaches_more_than_a_lopsided_one() -> None:
    newcomer = NEW
    assert information(newcomer, Skill(1500, 80)) > information(newcomer, Skill(1900, 80))
    assert information(newcomer, Skill(1600, 80)) > information(newcomer, Skill(1100, 80))


def test_a_well_known_opponent_teaches_more_than_an_uncertain_one() -> None:
    assert information(NEW, Skill(1500, 60)) > information(NEW, Skill(1500, 300))


def test_information_is_the_variance_an_even_game_removes() -> None:
    # gamma = 1: sigma^4 * p(1-p) / c^2, p = 1/2 for equal means
    c2 = 350.0**2 + 80.0**2 + 2 * BETA**2
    assert information(NEW, Skill(1500, 80)) == pytest.approx(350.0**4 / 4 / c2, rel=1e-12)

