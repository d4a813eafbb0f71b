"""The totals the store keeps (schema 4) say what a rescan of every match would say:
seat counts, the leaderboard's pairwise games, the rated match count; the fit made
from them equals the fit before they existed; an older store is filled on upgrade."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from niwa.ladder import elo, mle
from niwa.ladder.reads import Reads, shown_placings
from niwa.ladder.schema import LATEST
from niwa.ladder.store import ACTIVE, RATED, SUPERSEDED, VALIDATION, Finished, SeatResult, Store
from niwa.ladder.store.ratings import PAIRWISE
from tests.ladder import elo_before
from tests.ladder.rewind import rewind


@pytest.fixture
def store(any_store: Store) -> Store:
    """Every test of this file runs on SQLite and on PostgreSQL, its leaderboard rated
    by the pairwise fit whose totals they test."""
    any_store.ratings.set_rating(PAIRWISE)
    return any_store


def play(store: Store, seats: list[int], places: list[int], kind: str = RATED) -> None:
    store.matches.queue_match("blossom", "blossom@1", seats, seed=1, kind=kind)
    match = store.matches.claim_next()
    assert match is not None
    results = tuple(
        SeatResult(seat, bot, place, 0.0, "ok")
        for seat, (bot, place) in enumerate(zip(seats, places, strict=True))
    )
    assert store.matches.finish_match(match.id, Finished(results, 10, 0.1, "0" * 64))


def random_ladder(store: Store, seed: int) -> list[int]:
    """Rated and validation matches of 2-4 seats with shared places, a bot superseded
    halfway, a match left queued; returns the bots."""
    rng = random.Random(seed)
    owner, _ = store.owners.add_owner("alice")
    bots = [
        store.bots.add_bot(f"bot{i}", "1", "blossom", owner.id, "archive", None, ACTIVE).id
        for i in range(7)
    ]
    for round_ in range(2):
        for _ in range(60):
            seats = rng.sample(bots, rng.randint(2, 4))
            places = [rng.randint(0, len(seats) - 1) for _ in seats]
            play(store, seats, places, VALIDATION if rng.random() < 0.1 else RATED)
        if round_ == 0:  # bot0@1 is replaced: its matches count only among the others
            again = store.bots.add_bot("bot0", "2", "blossom", owner.id, "archive", None, ACTIVE)
            bots[0] = again.id
    store.matches.queue_match("blossom", "blossom@1", bots[:3], seed=2)
    return bots


def rescanned_seat_counts(store: Store) -> dict[tuple[int, int], int]:
    rows = store.db.execute("SELECT bot_id, seat, COUNT(*) AS n FROM match_seats "
                            "GROUP BY bot_id, seat")
    return {(int(r["bot_id"]), int(r["seat"])): int(r["n"]) for r in rows}


def test_seat_counts_equal_the_seat_rows_counted(store: Store) -> None:
    random_ladder(store, seed=1)
    every_bot = [int(r["id"]) for r in store.db.execute("SELECT id FROM bots")]
    assert store.matches.seat_counts(every_bot) == rescanned_seat_counts(store)


def test_rated_count_is_the_finished_rated_matches(store: Store) -> None:
    random_ladder(store, seed=2)
    assert store.ratings.rated_count("blossom") == len(store.ratings.rated_placings("blossom"))
    assert store.ratings.rated_count("sakura") == 0


def test_shown_totals_equal_the_totals_of_the_shown_seats(store: Store) -> None:
    random_ladder(store, seed=3)
    shown = {b.id for b in store.bots.bots("blossom", [ACTIVE])}
    assert any(b.status == SUPERSEDED for b in store.bots.bots("blossom"))
    _, expected = elo.pair_totals(shown_placings(store.ratings.rated_placings("blossom"), shown))
    stored = store.ratings.shown_totals("blossom", shown)
    assert stored.keys() == expected.keys()
    for pair, (games, score) in expected.items():
        assert stored[pair] == pytest.approx((games, score), abs=1e-9)


def test_the_leaderboard_fit_equals_the_fit_before_stored_totals(store: Store) -> None:
    random_ladder(store, seed=4)
    shown = {b.id for b in store.bots.bots("blossom", [ACTIVE])}
    before = elo_before.batch_elo(shown_placings(store.ratings.rated_placings("blossom"), shown))
    now = store.ratings.rated_fit("blossom", shown)
    assert now.keys() == before.keys()
    for bot, estimate in before.items():
        assert now[bot].elo == pytest.approx(estimate.elo, abs=1e-6)
        assert now[bot].ci95 == pytest.approx(estimate.ci95, abs=1e-6)


def test_the_leaderboard_follows_a_rated_match_committed_after_it_was_read(
    store: Store,
) -> None:
    bots = random_ladder(store, seed=5)
    first = {row.bot.id: row.elo for row in Reads(store).leaderboards("blossom")[0].rows}
    play(store, bots[-2:], [0, 1])
    board = Reads(store).leaderboards("blossom")[0]
    shown = {b.id for b in store.bots.bots("blossom", [ACTIVE])}
    fresh = mle.batch_elo(shown_placings(store.ratings.rated_placings("blossom"), shown))
    assert board.matches == len(store.ratings.rated_placings("blossom"))
    assert {row.bot.id: row.elo for row in board.rows} == pytest.approx(
        {bot: e.elo for bot, e in fresh.items()}, abs=1e-6
    )
    assert first != {row.bot.id: row.elo for row in board.rows}


def test_the_leaderboard_follows_a_bot_being_superseded(store: Store) -> None:
    random_ladder(store, seed=6)
    Reads(store).leaderboards("blossom")
    owner = store.bots.bots("blossom")[0].owner_id
    old = next(b.id for b in store.bots.bots("blossom") if b.label == "bot3@1")
    store.bots.add_bot("bot3", "2", "blossom", owner, "archive", None, ACTIVE)
    board = Reads(store).leaderboards("blossom")[0]
    assert old not in {row.bot.id for row in board.rows}
    shown = {b.id for b in store.bots.bots("blossom", [ACTIVE])}
    fresh = mle.batch_elo(shown_placings(store.ratings.rated_placings("blossom"), shown))
    assert {row.bot.id for row in board.rows if row.bot.id in fresh} == set(fresh)
    for row in board.rows:
        if row.bot.id in fresh:
            assert row.elo == pytest.approx(fresh[row.bot.id].elo, abs=1e-6)


def test_upgrading_a_schema_3_store_fills_the_totals_from_its_matches(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(db_url, tmp_path)
    random_ladder(store, seed=7)
    shown = {b.id for b in store.bots.bots("blossom", [ACTIVE])}
    totals = store.ratings.shown_totals("blossom", shown)
    rewind(store.db, 3)  # the store schema 3 made: later schemas added tables and indexes
    store.close()

    upgraded = Store.open(db_url, tmp_path)
    assert int(upgraded.db.scalar("SELECT MAX(version) FROM schema_version")) == LATEST
    every_bot = [int(r["id"]) for r in upgraded.db.execute("SELECT id FROM bots")]
    assert upgraded.matches.seat_counts(every_bot) == rescanned_seat_counts(upgraded)
    placings = upgraded.ratings.rated_placings("blossom")
    assert upgraded.ratings.rated_count("blossom") == len(placings)
    filled = upgraded.ratings.shown_totals("blossom", shown)
    assert filled.keys() == totals.keys()
    for pair, value in totals.items():
        assert filled[pair] == pytest.approx(value, abs=1e-9)
    upgraded.close()


def test_the_newest_duplicate_group_is_read_from_an_index(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "ladder.db"))  # SQLite's plan; PostgreSQL's differs
    plan = store.db.execute(
        "EXPLAIN QUERY PLAN SELECT COALESCE(MAX(duplicate_group), 0) + 1 FROM matches"
    )
    assert any("matches_duplicate_group" in str(row["detail"]) for row in plan)
