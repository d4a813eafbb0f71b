"""The per-seat and per-table totals (schema 10) say what a rescan of the current
season's rated matches would say, on SQLite and PostgreSQL, and a store from before
them is filled when it upgrades in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.ladder import schema, seasons
from niwa.ladder.db import Database
from niwa.ladder.reads import Reads, bot_view
from niwa.ladder.schema import LATEST, current_version
from niwa.ladder.store import DONE, RATED, Store
from niwa.ladder.store import tables as table_totals
from tests.ladder.rewind import rewind
from tests.ladder.test_store_totals import play, random_ladder
from tests.ladder.test_upgrade import schema_4_store

Seats = dict[tuple[int, int, int], tuple[int, int, int, int]]
Pairs = dict[tuple[int, int], tuple[int, int, int]]


@pytest.fixture
def store(any_store: Store) -> Store:
    return any_store


def rescanned(db: Database, after_match: int = 0) -> tuple[Seats, Pairs]:
    """The totals counted from the results of every finished rated match (with an id
    above ``after_match``)."""
    matches: dict[int, list[tuple[int, int, int]]] = {}
    for r in db.execute(
        "SELECT r.match_id, r.seat, r.bot_id, r.place FROM results r "
        "JOIN matches m ON m.id = r.match_id WHERE m.kind = ? AND m.state = ? AND m.id > ?",
        (RATED, DONE, after_match),
    ):
        matches.setdefault(int(r["match_id"]), []).append(
            (int(r["seat"]), int(r["bot_id"]), int(r["place"]))
        )
    seats: dict[tuple[int, int, int], list[int]] = {}
    pairs: dict[tuple[int, int], list[int]] = {}
    for match in matches.values():
        for seat, bot, place in match:
            line = seats.setdefault((bot, len(match), seat), [0, 0, 0, 0])
            for i, value in enumerate((1, place, place * place, int(place == 0))):
                line[i] += value
            for other_seat, other, other_place in match:
                if other_seat != seat and other != bot:
                    pair = pairs.setdefault((bot, other), [0, 0, 0])
                    pair[0] += 1
                    pair[1] += place < other_place
                    pair[2] += place == other_place
    return (
        {k: (v[0], v[1], v[2], v[3]) for k, v in seats.items()},
        {k: (v[0], v[1], v[2]) for k, v in pairs.items()},
    )


def stored(db: Database) -> tuple[Seats, Pairs]:
    seats = {
        (int(r["bot_id"]), int(r["players"]), int(r["seat"])): (
            int(r["matches"]), int(r["place_sum"]), int(r["place_squares"]), int(r["firsts"])
        )
        for r in db.execute("SELECT * FROM seat_results")
    }
    pairs = {
        (int(r["bot_id"]), int(r["other_id"])): (
            int(r["together"]), int(r["ahead"]), int(r["level"])
        )
        for r in db.execute("SELECT * FROM table_pairs")
    }
    return seats, pairs


def test_committed_rated_matches_add_to_the_totals_and_others_do_not(store: Store) -> None:
    random_ladder(store, seed=5)  # validation matches among them
    seats, pairs = stored(store.db)
    assert (seats, pairs) == rescanned(store.db)
    assert {players for _, players, _ in seats} == {2, 3, 4}


def test_a_new_season_starts_the_totals_from_nothing(store: Store) -> None:
    bots = random_ladder(store, seed=6)
    seasons.start(store, "spring")
    assert stored(store.db) == ({}, {})
    play(store, bots[:3], [0, 1, 1])
    assert stored(store.db)[0] == {
        (bots[0], 3, 0): (1, 0, 0, 1), (bots[1], 3, 1): (1, 1, 1, 0),
        (bots[2], 3, 2): (1, 1, 1, 0),
    }  # fmt: skip


def test_the_kingmaker_check_reads_only_the_current_seasons_tables_of_three_or_more(
    store: Store,
) -> None:
    bots = random_ladder(store, seed=8)
    before = table_totals.shared_tables(store.db, bots[1], limit=2000)
    assert before and all(len(match) >= 3 for match in before)
    assert all(bots[1] in [bot for bot, _ in match] for match in before)
    seasons.start(store, "spring")
    assert table_totals.shared_tables(store.db, bots[1], limit=2000) == []
    play(store, bots[:3], [2, 0, 1])
    play(store, bots[:2], [0, 1])
    assert table_totals.shared_tables(store.db, bots[1], limit=2000) == [
        [(bots[0], 2), (bots[1], 0), (bots[2], 1)]
    ]


def test_the_kingmaker_read_takes_the_newest_tables_up_to_its_limit(store: Store) -> None:
    bots = random_ladder(store, seed=9)
    every = table_totals.shared_tables(store.db, bots[1], limit=2000)
    assert table_totals.shared_tables(store.db, bots[1], limit=3) == every[-3:]


def test_an_older_store_upgrades_in_place_with_its_rated_matches_counted(
    db_url: str, tmp_path: Path
) -> None:
    url = schema_4_store(db_url, tmp_path)
    store = Store.open(url, tmp_path)
    assert current_version(store.db) == LATEST
    seats, pairs = stored(store.db)
    assert seats and pairs
    assert (seats, pairs) == rescanned(store.db)
    store.close()


#: The migration that adds the seat and table totals.
TABLES_SCHEMA = next(
    n for n, m in enumerate(schema.MIGRATIONS, 1) if any("seat_results" in s for s in m)
)


def test_a_store_from_before_the_totals_upgrades_counting_only_its_current_seasons_matches(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(db_url, tmp_path)
    bots = random_ladder(store, seed=10)
    ended = int(store.db.scalar("SELECT MAX(id) FROM matches"))
    seasons.start(store, "spring")
    for seats, places in (([0, 1, 2], [1, 0, 2]), ([2, 3], [0, 0]), ([1, 3, 4, 5], [3, 2, 1, 0])):
        play(store, [bots[i] for i in seats], places)
    expected = stored(store.db)
    rewind(store.db, TABLES_SCHEMA - 1)  # the store as the niwa before the totals left it
    store.close()
    upgraded = Store.open(db_url, tmp_path)
    assert current_version(upgraded.db) == LATEST
    assert stored(upgraded.db) == expected == rescanned(upgraded.db, after_match=ended)
    upgraded.close()


def test_the_bot_read_sums_the_seats_by_player_count(store: Store) -> None:
    bots = random_ladder(store, seed=7)
    bot = bot_view(store.bots.bot(bots[1]))
    read = Reads(store).bot_tables(bot)
    rows = table_totals.seat_rows(store.db, bot.id)
    for line in read.by_players:
        assert line.places.matches == sum(r.matches for r in rows if r.players == line.players)
    assert sum(line.places.matches for line in read.by_seat) == sum(
        line.places.matches for line in read.by_players
    )
    assert [o.together for o in read.opponents] == sorted(
        (o.together for o in read.opponents), reverse=True
    )
    assert set(read.labels) >= {o.other_id for o in read.opponents}
