"""The balance migration upgrades a store of the previous schema in place, on both
engines: every rated match finished before it waits in the backfill backlog."""

from __future__ import annotations

from pathlib import Path

from niwa.ladder import balance_backfill, schema
from niwa.ladder.db import Database
from niwa.ladder.store import Store
from tests.ladder.test_upgrade import schema_4_store


def test_old_rated_matches_wait_in_the_balance_backlog(db_url: str, tmp_path: Path) -> None:
    url = schema_4_store(db_url, tmp_path)
    db = Database.open(url)
    rated = db.scalar("SELECT COUNT(*) FROM matches WHERE kind = 'rated' AND state = 'done'")
    db.close()
    store = Store.open(url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    assert rated
    assert store.db.scalar("SELECT COUNT(*) FROM balance_backlog") == rated
    assert store.db.scalar("SELECT COUNT(*) FROM balance_matches") == 0
    store.close()


def test_a_new_store_has_an_empty_balance_backlog(any_store: Store) -> None:
    assert any_store.db.scalar("SELECT COUNT(*) FROM balance_backlog") == 0


def test_old_matches_whose_replays_are_gone_leave_the_backlog_uncounted(
    db_url: str, tmp_path: Path
) -> None:
    # The schema-4 fixture is the store alone: its replay files were never copied.
    store = Store.open(schema_4_store(db_url, tmp_path), tmp_path)
    waiting = store.balance.backlog_count()
    done = balance_backfill.backfill(store)
    assert (done.total, done.counted, done.skipped) == (waiting, 0, waiting)
    assert store.balance.backlog_count() == 0
    assert store.db.scalar("SELECT COUNT(*) FROM balance_totals") == 0
    store.close()
