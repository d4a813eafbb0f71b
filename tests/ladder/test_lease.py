"""The runner lease (ladder/lease.py) on SQLite and PostgreSQL: one holder at a time,
taken over only once its heartbeat stopped for a lease time."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

from ladder.lease import Lease, node_name
from ladder.store import Store


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
