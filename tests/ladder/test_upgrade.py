"""A store made by the previous niwa (schema 4) upgrades in place, on both engines: its
matches, results and ratings are kept, and the ladder goes on writing to it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from niwa.ladder import schema
from niwa.ladder.db import Database, is_postgres_url
from niwa.ladder.lease import Lease
from niwa.ladder.store import Finished, SeatResult, Store

#: Made by niwa at schema 4 (commit 6ee1311): ``niwa ladder demo --data DIR --matches 2
#: --workers 1 --seed 4`` (8 rated matches of 4 games), its WAL checkpointed.
FIXTURE = Path(__file__).parent / "fixtures" / "schema4-demo.db"
#: The tables of schema 4, parents before children.
TABLES = (
    "owners", "bots", "matches", "match_seats", "results", "ratings", "rating_history",
    "settings", "seat_totals", "pair_totals", "rated_totals",
)  # fmt: skip
SERIAL = ("owners", "bots", "matches")


def rows(db: Database) -> dict[str, list[dict[str, Any]]]:
    return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1, 2") for t in TABLES}


def schema_4_store(db_url: str, tmp_path: Path) -> str:
    """The fixture at ``db_url``'s engine: the file itself for SQLite; for PostgreSQL,
    schema 4 made by its migrations and the fixture's rows copied in."""
    if not is_postgres_url(db_url):
        shutil.copy(FIXTURE, db_url)
        return db_url
    source = sqlite3.connect(FIXTURE)
    source.row_factory = sqlite3.Row
    db = Database.open(db_url)
    schema.migrate(db, target=4)
    with db.transaction():
        for table in TABLES:
            for row in source.execute(f"SELECT * FROM {table}"):
                marks = ", ".join("?" for _ in tuple(row))
                db.execute(
                    f"INSERT INTO {table} ({', '.join(row.keys())}) VALUES ({marks})", tuple(row)
                )
        for table in SERIAL:  # as if the rows had been numbered here
            db.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) FROM {table}"
            )
    db.close()
    source.close()
    return db_url


def test_a_schema_4_store_upgrades_keeping_every_row(db_url: str, tmp_path: Path) -> None:
    url = schema_4_store(db_url, tmp_path)
    db = Database.open(url)
    assert schema.current_version(db) == 4
    before = rows(db)
    db.close()
    store = Store.open(url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    assert rows(store.db) == before
    assert before["results"] and before["rating_history"]
    store.close()


def test_an_upgraded_store_takes_new_matches_their_replays_and_a_lease(
    db_url: str, tmp_path: Path
) -> None:
    store = Store.open(schema_4_store(db_url, tmp_path), tmp_path)
    old = max(m.id for m in store.matches.matches(limit=100))
    a, b = [bot.id for bot in store.bots.bots("blossom")][:2]
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], seed=1)
    assert match_id > old
    assert store.matches.claim_next() is not None
    results = (SeatResult(0, a, 0, 1.0, "ok"), SeatResult(1, b, 1, 0.0, "ok"))
    replay = b'{"replay": 1}\n'
    finished = Finished(results, 3, 0.1, store.files.put_blob("replay", replay))
    assert store.matches.finish_match(match_id, finished, replay)
    assert store.files.blob(finished.replay_sha256) == replay
    assert Lease(store.db, "node", 30.0).acquire()
    store.close()
