"""The leaderboard read after each commit (the store adds the new matches to its last
fit's totals and restarts Newton's method from the last ratings) says what a fit from
scratch over every match says.

Tolerance: 1e-6 Elo on ratings and intervals. Both fits stop when a Newton step moves
no rating by 1e-7 Elo, and a step that small changes a curvature by ~1e-9 of itself,
so they agree far inside that; the board shows tenths of an Elo point."""

from __future__ import annotations

import random

import pytest

from niwa.ladder import elo, mle
from niwa.ladder.reads import Reads, shown_placings
from niwa.ladder.store import ACTIVE, RATED, VALIDATION, Store
from niwa.ladder.store.ratings import PAIRWISE
from tests.ladder.test_store_totals import play

TOLERANCE = 1e-6


def ladder_by_strength(store: Store, bots: int, matches: int, seed: int) -> list[int]:
    """Matches of 2-4 bots near each other in strength (as the scheduler pairs them),
    places from strength plus noise; returns the bots, weakest first."""
    rng = random.Random(seed)
    store.ratings.set_rating(PAIRWISE)  # the pairwise fit's kept totals are tested here
    store.db.execute("PRAGMA synchronous = OFF")  # hundreds of commits: no disk flushes
    owner, _ = store.owners.add_owner("alice")
    ids = [
        store.bots.add_bot(f"bot{i}", "1", "blossom", owner.id, "archive", None, ACTIVE).id
        for i in range(bots)
    ]
    for _ in range(matches):
        play_near(store, ids, rng)
    return ids


def play_near(store: Store, ids: list[int], rng: random.Random, kind: str = RATED) -> None:
    first = rng.randrange(len(ids))
    near = [k for k in range(first - 8, first + 9) if 0 <= k < len(ids) and k != first]
    seated = [first, *rng.sample(near, rng.randint(1, 3))]
    order = sorted(seated, key=lambda k: k + rng.gauss(0, 6), reverse=True)
    play(store, [ids[k] for k in seated], [order.index(k) for k in seated], kind)


def assert_board_is_the_fit_from_scratch(reader: Store) -> None:
    board = Reads(reader).leaderboards("blossom")[0]
    shown = {b.id for b in reader.bots.bots("blossom", [ACTIVE])}
    fresh = mle.batch_elo(shown_placings(reader.ratings.rated_placings("blossom"), shown))
    assert board.matches == len(reader.ratings.rated_placings("blossom"))
    rows = {row.bot.id: row for row in board.rows}
    assert rows.keys() == fresh.keys()
    for bot, estimate in fresh.items():
        assert rows[bot].elo == pytest.approx(estimate.elo, abs=TOLERANCE)
        assert rows[bot].ci95 == pytest.approx(estimate.ci95, abs=TOLERANCE)


def test_the_board_after_each_commit_equals_the_fit_from_scratch(store: Store) -> None:
    # 110 bots: the information falls into several blocks (niwa.ladder.blocks.SMALLEST).
    ids = ladder_by_strength(store, bots=110, matches=500, seed=1)
    rng = random.Random(2)
    assert_board_is_the_fit_from_scratch(store)
    for round_ in range(8):
        play_near(store, ids, rng, VALIDATION if round_ == 3 else RATED)
        assert_board_is_the_fit_from_scratch(store)


def test_a_reader_follows_matches_another_store_committed(store: Store) -> None:
    ids = ladder_by_strength(store, bots=30, matches=150, seed=3)
    reader = Store.open(str(store.data_dir / "ladder.db"))
    rng = random.Random(4)
    assert_board_is_the_fit_from_scratch(reader)
    for _ in range(3):
        play_near(store, ids, rng)
        play_near(store, ids, rng)
        assert_board_is_the_fit_from_scratch(reader)
    reader.close()


def test_a_warm_start_reaches_the_fit_from_zero() -> None:
    rng = random.Random(5)
    matches = []
    for _ in range(300):
        seats = rng.sample(range(20), rng.randint(2, 4))
        matches.append([(bot, rng.randint(0, len(seats) - 1)) for bot in seats])
    bots, totals = elo.pair_totals(matches)
    cold = mle.fit_from(elo.Pairs.of(bots, totals), elo.Fit())
    start = {bot: r + rng.uniform(-50, 50) for bot, r in cold.raw.items()}
    warm = mle.fit_from(elo.Pairs.of(bots, totals), elo.Fit(raw=start, order=cold.order))
    for bot, estimate in cold.estimates.items():
        assert warm.estimates[bot].elo == pytest.approx(estimate.elo, abs=TOLERANCE)
        assert warm.estimates[bot].ci95 == pytest.approx(estimate.ci95, abs=TOLERANCE)
