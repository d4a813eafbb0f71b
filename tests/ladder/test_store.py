"""The store: schema, owners, bots and the match life cycle (niwa/ladder/store.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from niwa.ladder import schema
from niwa.ladder.db import IDLE_IN_TRANSACTION_S, POSTGRES, SQLITE, Database, DatabaseError, redact
from niwa.ladder.store import (
    ACTIVE,
    DONE,
    FAILED,
    PENDING,
    QUEUED,
    RUNNING,
    SUPERSEDED,
    VALIDATION,
    Finished,
    SeatResult,
    Store,
    StoreError,
)
from tests.polling import PATIENCE_S, wait_for
from tests.postgres import Server


@pytest.fixture
def store(any_store: Store) -> Store:
    """Every test of this file runs on SQLite and on PostgreSQL."""
    return any_store


def two_bots(store: Store) -> tuple[int, int]:
    owner = store.owners.system_owner()
    a = store.bots.add_bot("a", "1", "blossom", owner.id, "builtin:random", None, ACTIVE)
    b = store.bots.add_bot("b", "1", "blossom", owner.id, "builtin:random", None, ACTIVE)
    return a.id, b.id


def win_for_first(a: int, b: int) -> Finished:
    return Finished(
        (SeatResult(0, a, 0, 10.0, "ok"), SeatResult(1, b, 1, 4.0, "ok")), 12, 0.25, "f" * 64
    )


def test_sqlite_statements_pass_through_unchanged() -> None:
    assert SQLITE.sql("SELECT * FROM t WHERE a = ? AND b LIKE 'x%'") == (
        "SELECT * FROM t WHERE a = ? AND b LIKE 'x%'"
    )


def test_postgres_gets_percent_placeholders_and_escaped_percent_signs() -> None:
    assert POSTGRES.sql("SELECT * FROM t WHERE a = ? AND b LIKE 'x%'") == (
        "SELECT * FROM t WHERE a = %s AND b LIKE 'x%%'"
    )


def test_id_column_is_the_dialects_own() -> None:
    assert POSTGRES.sql("CREATE TABLE t (id {id})") == "CREATE TABLE t (id BIGSERIAL PRIMARY KEY)"


def test_a_new_store_is_at_the_latest_schema(store: Store) -> None:
    assert schema.current_version(store.db) == schema.LATEST


def test_migrating_twice_changes_nothing(db_url: str, tmp_path: Path) -> None:
    Store.open(db_url, tmp_path).close()
    db = Database.open(db_url)
    assert schema.migrate(db) == schema.LATEST


def test_sqlite_store_uses_write_ahead_logging(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "ladder.db"))
    assert store.db.scalar("PRAGMA journal_mode") == "wal"


def test_a_transaction_that_fails_leaves_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError), store.db.transaction():
        store.owners.add_owner("ghost")
        raise RuntimeError("crash before commit")
    assert store.db.one("SELECT id FROM owners WHERE name = ?", ("ghost",)) is None


def test_only_a_hash_of_the_token_is_stored(store: Store) -> None:
    owner, token = store.owners.add_owner("alice")
    stored = store.db.scalar("SELECT token_hash FROM owners WHERE id = ?", (owner.id,))
    assert token not in stored
    assert store.owners.owner_for_token(token) == owner


def test_a_wrong_token_finds_no_owner(store: Store) -> None:
    store.owners.add_owner("alice")
    assert store.owners.owner_for_token("niwa_not-a-token") is None


def test_owner_names_are_unique(store: Store) -> None:
    store.owners.add_owner("alice")
    with pytest.raises(StoreError, match="exists already"):
        store.owners.add_owner("alice")


def test_a_bot_name_belongs_to_its_owner(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    bob, _ = store.owners.add_owner("bob")
    store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h1")
    with pytest.raises(StoreError, match="belongs to alice"):
        store.bots.add_bot("zen", "2", "blossom", bob.id, "archive", "h2")


def test_the_same_version_cannot_be_submitted_twice(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h1")
    with pytest.raises(StoreError, match="raise the version"):
        store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h2")


def test_a_new_version_supersedes_the_old_one_and_is_rated_on_its_own(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    old = store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h1", ACTIVE)
    store.db.execute("UPDATE ratings SET elo = 1700 WHERE bot_id = ?", (old.id,))
    new = store.bots.add_bot("zen", "2", "blossom", alice.id, "archive", "h2", PENDING)
    store.bots.set_bot_status(new.id, ACTIVE)
    assert store.bots.bot(old.id).status == SUPERSEDED
    assert store.bots.bot(old.id).elo == 1700
    assert store.bots.bot(new.id).elo == 1500


def test_claiming_moves_the_oldest_queued_match_to_running(store: Store) -> None:
    a, b = two_bots(store)
    first = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    store.matches.queue_match("blossom", "blossom@1", [b, a], 2)
    claimed = store.matches.claim_next()
    assert claimed is not None
    assert (claimed.id, claimed.state, claimed.attempts) == (first, RUNNING, 1)


def test_validation_matches_are_claimed_before_rated_ones(store: Store) -> None:
    a, b = two_bots(store)
    store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    validation = store.matches.queue_match("blossom", "blossom@1", [b, a], 2, kind=VALIDATION)
    claimed = store.matches.claim_next()
    assert claimed is not None and claimed.id == validation


def test_nothing_to_claim_gives_none(store: Store) -> None:
    assert store.matches.claim_next() is None


def test_finishing_records_results_and_ratings_together(store: Store) -> None:
    a, b = two_bots(store)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    store.matches.claim_next()
    assert store.matches.finish_match(match_id, win_for_first(a, b))
    assert store.matches.match(match_id).state == DONE
    assert [r.place for r in store.matches.results(match_id)] == [0, 1]
    assert (store.bots.bot(a).elo, store.bots.bot(b).elo) == (1516.0, 1484.0)
    assert (store.bots.bot(a).games, store.bots.bot(a).wins) == (1, 1)


def test_a_result_delivered_twice_is_counted_once(store: Store) -> None:
    a, b = two_bots(store)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    store.matches.claim_next()
    assert store.matches.finish_match(match_id, win_for_first(a, b))
    assert not store.matches.finish_match(match_id, win_for_first(a, b))
    assert store.bots.bot(a).games == 1
    assert store.bots.bot(a).elo == 1516.0


def test_a_queued_match_cannot_be_finished(store: Store) -> None:
    a, b = two_bots(store)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    assert not store.matches.finish_match(match_id, win_for_first(a, b))
    assert store.matches.results(match_id) == []


def test_running_matches_are_requeued_after_a_crash(store: Store) -> None:
    a, b = two_bots(store)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    store.matches.claim_next()
    assert store.matches.requeue_running() == [match_id]
    assert store.matches.match(match_id).state == QUEUED


def test_finished_matches_get_increasing_sequence_numbers(store: Store) -> None:
    a, b = two_bots(store)
    ids = [store.matches.queue_match("blossom", "blossom@1", [a, b], s) for s in range(2)]
    for _ in ids:
        store.matches.claim_next()
    store.matches.finish_match(ids[1], win_for_first(a, b))
    store.matches.finish_match(ids[0], win_for_first(a, b))
    assert [m.id for m in store.matches.matches(after_seq=0)] == [ids[1], ids[0]]


def test_a_match_the_referee_cannot_run_is_retried_then_failed(store: Store) -> None:
    a, b = two_bots(store)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], 1)
    states = []
    for _ in range(3):
        store.matches.claim_next()
        states.append(store.matches.fail_match(match_id, "boom", retries=2))
    assert states == [QUEUED, QUEUED, FAILED]
    assert store.matches.match(match_id).error == "boom"


@pytest.mark.parametrize(
    "name",
    ["Alice", "al\u0456ce", "alice\n", "a" * 33, "-alice", "al ice", ""],
    ids=["uppercase", "cyrillic-i", "newline", "too-long", "dash-first", "space", "empty"],
)
def test_owner_names_are_short_lowercase_ascii(store: Store, name: str) -> None:
    with pytest.raises(StoreError, match="lowercase ASCII"):
        store.owners.add_owner(name)


def test_owner_names_are_unique_whatever_their_case(store: Store) -> None:
    # An owner of an older ladder, made before names had to be lowercase.
    store.db.execute(
        "INSERT INTO owners (name, token_hash, is_admin, created_at) VALUES ('Alice', 'x', 0, 0)"
    )
    with pytest.raises(StoreError, match="exists already"):
        store.owners.add_owner("alice")


def test_a_bot_name_belongs_to_its_owner_in_every_game(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    bob, _ = store.owners.add_owner("bob")
    store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h1")
    with pytest.raises(StoreError, match="belongs to alice"):
        store.bots.add_bot("zen", "1", "sakura", bob.id, "archive", "h2")


def test_a_bot_name_belongs_to_its_owner_whatever_its_case(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    bob, _ = store.owners.add_owner("bob")
    store.bots.add_bot("zen", "1", "blossom", alice.id, "archive", "h1")
    with pytest.raises(StoreError, match="belongs to alice"):
        store.bots.add_bot("ZEN", "1", "blossom", bob.id, "archive", "h2")


def test_a_bot_name_with_a_trailing_newline_is_refused(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    with pytest.raises(StoreError, match="'name' must be"):
        store.bots.add_bot("zen\n", "1", "blossom", alice.id, "archive", "h1")


@pytest.mark.parametrize("name", ["random", "Greedy", "mcts", "random-2", "niwa", "builtin"])
def test_built_in_names_are_reserved_for_the_system_owner(store: Store, name: str) -> None:
    alice, _ = store.owners.add_owner("alice")
    with pytest.raises(StoreError, match="reserved for niwa's built-in bots"):
        store.bots.add_bot(name, "1", "blossom", alice.id, "archive", "h1")


def test_settings_are_kept_in_the_store(store: Store) -> None:
    store.settings.set_setting("quota.versions", "3")
    store.settings.set_setting("quota.versions", "4")
    assert store.settings.setting("quota.versions") == "4"
    assert store.settings.setting("nothing") is None


def test_games_with_bots_lists_each_game_a_bot_was_added_for_once_a_to_z(store: Store) -> None:
    assert store.bots.games_with_bots() == []
    owner = store.owners.system_owner()
    for name, game in [("a", "sakura"), ("b", "blossom"), ("c", "sakura")]:
        store.bots.add_bot(name, "1", game, owner.id, "builtin:random", None, ACTIVE)
    assert store.bots.games_with_bots() == ["blossom", "sakura"]


def test_a_postgres_url_without_psycopg_names_the_extra_to_install() -> None:
    # a Python where psycopg cannot be imported, as on a machine without the extra
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from niwa.ladder.db import Database, DatabaseError\n"
        "try:\n    Database.open('postgresql://ladder@db.example/ladder')\n"
        "except DatabaseError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=PATIENCE_S
    )
    assert "pip install 'niwa[postgres]'" in done.stdout


def test_a_server_that_refuses_is_named_with_its_cause() -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(DatabaseError, match=r"cannot connect to the PostgreSQL store.*refused"):
        Database.open(f"postgresql://ladder:secret@127.0.0.1:{port}/ladder")


def test_the_password_is_left_out_of_the_messages() -> None:
    assert redact("postgresql://ladder:secret@db:5432/ladder") == (
        "postgresql://ladder:***@db:5432/ladder"
    )


def test_a_password_given_as_a_parameter_is_left_out_too() -> None:
    assert redact("postgresql://ladder@db/ladder?sslmode=require&password=secret&x=1") == (
        "postgresql://ladder@db/ladder?sslmode=require&password=***&x=1"
    )
    assert redact("postgresql:///ladder?PASSWORD=secret") == "postgresql:///ladder?PASSWORD=***"


def test_a_refused_connection_names_no_password_given_as_a_parameter() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(DatabaseError) as e:
        Database.open(f"postgresql://ladder@127.0.0.1:{port}/ladder?password=secret")
    assert "secret" not in str(e.value)


def test_nodes_opening_a_new_store_at_once_each_find_it_migrated_once(
    db_url: str, tmp_path: Path
) -> None:
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda k: Store.open(db_url, tmp_path / str(k)), range(4)))
    try:
        versions = stores[0].db.execute("SELECT version FROM schema_version ORDER BY version")
        assert [r["version"] for r in versions] == list(range(1, schema.LATEST + 1))
    finally:
        for s in stores:
            s.close()


def test_a_postgres_session_asks_the_server_to_end_it_if_idle_in_a_transaction(
    postgres_server: Server,
) -> None:
    # so that a paused runner's locks cannot hold up the one that took over
    db = Database.open(postgres_server.database())
    assert db.scalar("SHOW idle_in_transaction_session_timeout") == f"{IDLE_IN_TRANSACTION_S}s"
    db.close()


def test_two_nodes_finishing_at_once_both_commit_with_their_own_sequence_numbers(
    postgres_server: Server, tmp_path: Path
) -> None:
    url = postgres_server.database()
    first, second = Store.open(url, tmp_path), Store.open(url, tmp_path)
    try:
        a, b = two_bots(first)
        ids = [first.matches.queue_match("blossom", "blossom@1", [a, b], s) for s in range(2)]
        for _ in ids:
            first.matches.claim_next()
        with ThreadPoolExecutor(1) as pool, first.db.transaction():
            assert first.matches.finish_match(ids[0], win_for_first(a, b))
            # The second commit starts while the first is still open, and must wait for it.
            later = pool.submit(second.matches.finish_match, ids[1], win_for_first(a, b))
            wait_for("the second commit to wait", lambda: waiting_backends(postgres_server, url))
        assert later.result()
        assert [m.id for m in first.matches.matches(after_seq=0)] == ids
    finally:
        first.close()
        second.close()


def waiting_backends(server: Server, url: str) -> int:
    """Connections to ``url``'s database blocked on a lock now."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
            " AND wait_event_type = 'Lock'", (name,),
        ).fetchone()  # fmt: skip
    return int(row[0]) if row else 0
