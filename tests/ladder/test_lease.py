"""The runner lease (niwa/ladder/lease.py) on SQLite and PostgreSQL: one holder at a time,
taken over only once its heartbeat stopped for a lease time."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from pathlib import Path

import pytest

from niwa.ladder import submission
from niwa.ladder.db import session_name
from niwa.ladder.lease import Lease, node_name
from niwa.ladder.store import ACTIVE, Store
from tests.postgres import Server


@pytest.fixture
def store(any_store: Store) -> Store:
    return any_store


def test_a_free_lease_is_taken(store: Store) -> None:
    assert Lease(store.db, "a", 30.0).acquire()


def test_a_held_lease_is_refused_to_another(store: Store) -> None:
    assert Lease(store.db, "a", 30.0).acquire()
    assert not Lease(store.db, "b", 30.0).acquire()
    holder = Lease(store.db, "b", 30.0).current()
    assert holder is not None and holder.holder == "a"


def test_the_holder_renews_its_own_lease(store: Store) -> None:
    lease = Lease(store.db, "a", 30.0)
    assert lease.acquire()
    assert lease.acquire()


def test_an_expired_lease_is_taken_over(store: Store) -> None:
    assert Lease(store.db, "a", 0.2).acquire()
    time.sleep(0.3)  # the holder's heartbeat stopped
    assert Lease(store.db, "b", 30.0).acquire()
    assert not Lease(store.db, "a", 0.2).acquire()


def test_a_released_lease_is_free_at_once(store: Store) -> None:
    lease = Lease(store.db, "a", 30.0)
    assert lease.acquire()
    lease.release()
    assert Lease(store.db, "b", 30.0).acquire()


def test_release_by_another_leaves_the_lease_held(store: Store) -> None:
    assert Lease(store.db, "a", 30.0).acquire()
    Lease(store.db, "b", 30.0).release()
    assert not Lease(store.db, "b", 30.0).acquire()


def test_two_connections_never_both_take_a_free_lease(db_url: str, tmp_path: Path) -> None:
    first, second = Store.open(db_url, tmp_path), Store.open(db_url, tmp_path)
    try:
        taken = [Lease(s.db, name, 30.0).acquire() for s, name in ((first, "a"), (second, "b"))]
        assert taken == [True, False]
    finally:
        first.close()
        second.close()


def test_a_lease_of_a_dead_process_of_this_machine_is_taken_at_once(store: Store) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()  # ended and reaped: its pid names no process
    dead = f"{socket.gethostname()}:{gone.pid}:abcdef"
    assert Lease(store.db, dead, 30.0).acquire()
    assert Lease(store.db, node_name(), 30.0).take_from_dead()


def test_a_lease_of_a_live_process_is_not_taken_early(store: Store) -> None:
    assert Lease(store.db, node_name(), 30.0).acquire()  # this very process
    assert not Lease(store.db, "other", 30.0).take_from_dead()


def test_a_lease_named_by_its_operator_waits_for_its_expiry(store: Store) -> None:
    assert Lease(store.db, "runner-a", 30.0).acquire()
    assert not Lease(store.db, "runner-b", 30.0).take_from_dead()


def test_taking_an_expired_lease_names_the_holder_it_was_taken_from(store: Store) -> None:
    assert Lease(store.db, "a", 0.2).acquire()
    time.sleep(0.3)
    successor = Lease(store.db, "b", 30.0)
    assert successor.acquire()
    assert successor.taken_from == "a"


def test_renewing_or_taking_a_free_lease_takes_it_from_nobody(store: Store) -> None:
    lease = Lease(store.db, "a", 30.0)
    assert lease.acquire() and lease.acquire()
    assert lease.taken_from is None


def test_a_long_node_name_keeps_apart_from_another_with_the_same_prefix() -> None:
    host = "h" * 70
    first, second = session_name(f"{host}:1:abcdef"), session_name(f"{host}:2:abcdef")
    assert first != second
    assert len(first.encode()) <= 63 and len(second.encode()) <= 63
    assert session_name("host:1:abcdef") == "host:1:abcdef"


def test_a_successor_ends_the_sessions_of_a_holder_paused_mid_pipeline(
    postgres_server: Server, tmp_path: Path
) -> None:
    # A runner paused (SIGSTOP, a stalled machine) in the middle of a pipeline holds
    # its row locks with its session "active", which no server timeout ends.
    url = postgres_server.database()
    old, new = Store.open(url, tmp_path), Store.open(url, tmp_path)
    try:
        bot = submission.builtin_bot(old, "random", "blossom", ACTIVE, alias="held")
        assert Lease(old.db, "old-runner", 0.2).acquire()
        # libpq's own pipeline: the UPDATE is sent and run, no Sync follows, so the
        # server waits for the client with the row locked.
        raw = old.db.connection.pgconn
        raw.enter_pipeline_mode()
        raw.send_query_params(b"BEGIN", None)
        raw.send_query_params(b"UPDATE bots SET reason = 'mid-write' WHERE id = $1",
                              [str(bot.id).encode()])  # fmt: skip
        raw.send_flush_request()
        assert raw.flush() == 0
        time.sleep(0.3)  # ... past the lease
        lease = Lease(new.db, "new-runner", 30.0)
        assert lease.acquire() and lease.taken_from == "old-runner"
        assert new.db.end_sessions("old-runner") == 1
        new.db.execute("SET lock_timeout = '5s'")
        new.db.execute("UPDATE bots SET reason = 'free' WHERE id = ?", (bot.id,))
        assert new.db.scalar("SELECT reason FROM bots WHERE id = ?", (bot.id,)) == "free"
    finally:
        new.close()
        with contextlib.suppress(Exception):
            old.close()


def test_ending_sessions_on_sqlite_ends_nothing(store: Store) -> None:
    assert Lease(store.db, "a", 30.0).acquire()
    assert store.db.end_sessions("a") == 0
