"""Provisional ratings in a real store, on SQLite and on PostgreSQL: each rated match
commit moves its bots' online ratings, a bot leaves provisional by playing, a new
season makes every bot provisional again, and a store of today upgrades in place
(schema 13) with its rated bots seeded from their running Elo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import client, schema, seasons, server, skill
from niwa.ladder.db import Database
from niwa.ladder.reads import Reads
from niwa.ladder.store import ACTIVE, VALIDATION, Store
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.rewind import rewind
from tests.ladder.test_store_totals import play
from tests.ladder.test_upgrade import schema_4_store


@pytest.fixture
def store(any_store: Store) -> Store:
    """Every test of this file runs on SQLite and on PostgreSQL."""
    return any_store


def bots(store: Store, count: int) -> list[int]:
    owner, _ = store.owners.add_owner("alice")
    return [
        store.bots.add_bot(f"bot{i}", "1", "blossom", owner.id, "archive", None, ACTIVE).id
        for i in range(count)
    ]


def test_a_bot_without_a_rated_match_has_no_online_rating_yet(store: Store) -> None:
    bots(store, 2)
    assert store.ratings.skills("blossom") == {}


def test_a_rated_match_moves_its_bots_online_ratings_as_the_update_says(store: Store) -> None:
    a, b, c = bots(store, 3)
    play(store, [a, b, c], [1, 0, 1])
    expected = skill.update([skill.NEW] * 3, [1, 0, 1])
    got = store.ratings.skills("blossom")
    for bot_id, want in zip([a, b, c], expected, strict=True):
        assert got[bot_id].mu == pytest.approx(want.mu, abs=1e-9)
        assert got[bot_id].sigma == pytest.approx(want.sigma, abs=1e-9)
        assert got[bot_id].matches == 1
    play(store, [c, a], [0, 1])  # the second match starts from the first's ratings
    after = skill.update([expected[2], expected[0]], [0, 1])
    got = store.ratings.skills("blossom")
    assert got[c].mu == pytest.approx(after[0].mu, abs=1e-9)
    assert got[a].sigma == pytest.approx(after[1].sigma, abs=1e-9)
    assert got[b].matches == 1


def test_a_validation_match_moves_no_online_rating(store: Store) -> None:
    a, b = bots(store, 2)
    play(store, [a, b], [0, 1], kind=VALIDATION)
    assert store.ratings.skills("blossom") == {}


def test_a_new_bot_is_provisional_on_the_leaderboard_until_its_sigma_settles(
    store: Store,
) -> None:
    a, b = bots(store, 2)

    def provisional() -> dict[int, bool]:
        (board,) = Reads(store).leaderboards("blossom")
        return {row.bot.id: row.provisional for row in board.rows}

    # how many even matches two new bots need, by the update itself (29 today)
    x, y, settle = skill.NEW, skill.NEW, 0
    while x.provisional:
        x, y = skill.update([x, y], [settle % 2, 1 - settle % 2])
        settle += 1
    assert settle < skill.PROVISIONAL_MATCHES  # sigma settles them, not the count

    assert provisional() == {a: True, b: True}
    for n in range(settle - 1):
        play(store, [a, b], [n % 2, 1 - n % 2])
    assert provisional() == {a: True, b: True}
    play(store, [a, b], [(settle - 1) % 2, settle % 2])
    assert provisional() == {a: False, b: False}
    assert store.ratings.skills("blossom")[a].sigma <= skill.PROVISIONAL_SIGMA


def test_a_new_season_makes_every_bot_provisional_again(store: Store) -> None:
    a, b = bots(store, 2)
    play(store, [a, b], [0, 1])
    seasons.start(store, "spring")
    assert store.ratings.skills("blossom") == {}
    (board,) = Reads(store).leaderboards("blossom")
    assert all(row.provisional for row in board.rows)


def test_an_ended_season_s_frozen_rows_keep_the_mark_as_it_stood(store: Store) -> None:
    a, b = bots(store, 2)
    script_settled(store, b)
    play(store, [a, b], [0, 1])
    seasons.start(store, "spring")
    (frozen,) = Reads(store).leaderboards("blossom", "season-1")
    assert {row.bot.id: row.provisional for row in frozen.rows} == {a: True, b: False}


def test_a_store_of_today_gains_online_ratings_from_its_running_elo(
    db_url: str, tmp_path: Path
) -> None:
    url = schema_4_store(db_url, tmp_path)
    db = Database.open(url)
    rated = {
        int(r["bot_id"]): (float(r["elo"]), int(r["games"]))
        for r in db.execute("SELECT bot_id, elo, games FROM ratings WHERE games > 0")
    }
    unrated = {int(r["bot_id"]) for r in db.execute("SELECT bot_id FROM ratings WHERE games = 0")}
    # one bot as if it had played 20 matches: it starts settled
    veteran = min(rated)
    db.execute("UPDATE ratings SET games = 20 WHERE bot_id = ?", (veteran,))
    rated[veteran] = (rated[veteran][0], 20)
    db.close()

    store = Store.open(url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    games = {str(r["game"]) for r in store.db.execute("SELECT DISTINCT game FROM ratings")}
    online = {k: v for game in games for k, v in store.ratings.skills(game).items()}
    assert rated and set(online) == set(rated)
    assert not set(online) & unrated
    for bot_id, (elo, played) in rated.items():
        assert online[bot_id].mu == pytest.approx(elo)
        assert online[bot_id].matches == played
    assert not online[veteran].provisional
    assert all(online[b].provisional for b in rated if rated[b][1] < 15)
    store.close()


#: The migration that adds the online ratings.
SKILLS_SCHEMA = next(
    n for n, m in enumerate(schema.MIGRATIONS, 1) if any("CREATE TABLE skills" in s for s in m)
)


def test_a_store_of_the_schema_before_upgrades_in_place_keeping_its_frozen_seasons(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(db_url, tmp_path)
    a, b, c = bots(store, 3)
    for n in range(16):  # season-1: a and b well played, c once
        play(store, [a, b], [n % 2, 1 - n % 2])
    play(store, [c, a], [0, 1])
    seasons.start(store, "spring")
    play(store, [a, c], [0, 1])
    elo_a = store.db.scalar("SELECT elo FROM ratings WHERE bot_id = ?", (a,))
    rewind(store.db, SKILLS_SCHEMA - 1)  # the store the niwa before online ratings left
    store.close()

    store = Store.open(db_url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    online = store.ratings.skills("blossom")
    # this season: a and c played one match each, b none
    assert set(online) == {a, c}
    assert online[a].mu == pytest.approx(float(elo_a))
    assert online[a].matches == 1 and online[a].provisional
    # a season frozen before the mark was kept shows none (c had one match then)
    (frozen,) = Reads(store).leaderboards("blossom", "season-1")
    assert len(frozen.rows) == 3 and not any(row.provisional for row in frozen.rows)
    store.close()


def test_an_upgraded_store_goes_on_moving_the_seeded_ratings(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(schema_4_store(db_url, tmp_path), tmp_path)
    before = store.ratings.skills("blossom")
    a, b = list(before)[:2]
    play(store, [a, b], [0, 1])
    after = skill.update([before[a], before[b]], [0, 1])
    now = store.ratings.skills("blossom")
    assert now[a].mu == pytest.approx(after[0].mu, abs=1e-6)
    assert now[b].sigma == pytest.approx(after[1].sigma, abs=1e-6)
    store.close()


def test_the_api_s_leaderboard_rows_say_which_bots_are_provisional(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(db_url, tmp_path)
    a, b = bots(store, 2)
    script_settled(store, b)
    grpc_server, port = server.start(db_url, tmp_path, "127.0.0.1:0")
    channel, stub = client.connect(f"127.0.0.1:{port}")
    try:
        (board,) = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards
        assert {row.bot.id: row.provisional for row in board.rows} == {a: True, b: False}
    finally:
        channel.close()
        grpc_server.stop(None)
        store.close()


def test_the_cli_marks_provisional_bots_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ladder.db"
    store = Store.open(str(db), tmp_path)
    _, settled = bots(store, 2)
    script_settled(store, settled)
    store.close()
    assert main(["ladder", "leaderboard", "blossom", "--db", str(db)]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "(provisional)" in lines["bot0@1"] and "(provisional)" not in lines["bot1@1"]
    assert main(["ladder", "leaderboard", "blossom", "--db", str(db), "--json"]) == 0
    (board,) = json.loads(capsys.readouterr().out)["boards"]
    assert {row["bot"]: row["provisional"] for row in board["rows"]} == {
        "bot0@1": True, "bot1@1": False,
    }  # fmt: skip


def script_settled(store: Store, bot_id: int) -> None:
    """Give ``bot_id`` a settled online rating, as if it had played long."""
    store.db.execute(
        "INSERT INTO skills (bot_id, game, mu, sigma_sq, matches) VALUES (?, ?, ?, ?, ?)",
        (bot_id, "blossom", 1500.0, 80.0**2, 60),
    )


def test_the_scheduler_s_query_says_provisional_exactly_as_the_rating_does(store: Store) -> None:
    new, wide, narrow, counted = bots(store, 4)
    rows = {
        wide: skill.Skill(1500, skill.PROVISIONAL_SIGMA + 1, skill.PROVISIONAL_MATCHES - 1),
        narrow: skill.Skill(1500, skill.PROVISIONAL_SIGMA - 1, 3),
        counted: skill.Skill(1500, 300, skill.PROVISIONAL_MATCHES),
    }
    for bot_id, online in rows.items():
        store.db.execute(
            "INSERT INTO skills (bot_id, game, mu, sigma_sq, matches) VALUES (?, ?, ?, ?, ?)",
            (bot_id, "blossom", online.mu, online.sigma**2, online.matches),
        )
    flags = {row[0]: row[4] for row in store.bots.ratings("blossom")}
    assert flags == {new: True, wide: True, narrow: False, counted: False}
    assert flags == {b: rows.get(b, skill.NEW).provisional for b in flags}
    assert store.ratings.settled("blossom") == {narrow, counted}
