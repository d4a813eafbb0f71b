"""Two runners on one PostgreSQL store: what each serves and accepts around a failover.

A runner that lost its lease in the middle of a match leaves that attempt's replay in
its folder while the next leader plays the match again; its API must still serve the
recorded replay. Two nodes taking their first submissions at the same moment both
create the built-in owner and validation opponent rows; both must succeed."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from niwa.ladder import archive, submission
from niwa.ladder.client import CallFailed, LadderClient
from niwa.ladder.store import ACTIVE, DONE, QUEUED, RUNNING, Finished, Match, SeatResult, Store
from tests.ladder.serving import start_ladder, wait_for
from tests.ladder.test_crash import assert_counted_once, snapshot, three_random_bots
from tests.ladder.tiny_bots import QUICK, write_bot
from tests.postgres import Server


def serve(db_url: str, tmp_path: Path, name: str) -> tuple[subprocess.Popen[str], str]:
    """A node of its own folder and name, a short lease."""
    (tmp_path / name).mkdir()
    flags = ("--data", str(tmp_path / name), "--node", name, "--lease", "2")
    return start_ladder(db_url, tmp_path / f"{name}.log", *flags)


def stop(*procs: subprocess.Popen[str] | None) -> None:
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        if proc is not None:
            proc.wait()


def in_flight_here(store: Store, folder: Path) -> int | None:
    """A running match whose replay this node's worker is writing now."""
    for match in store.matches.matches(state=RUNNING, limit=10):
        if list((folder / "replays").glob(f"{match.id}.attempt{match.attempts}.jsonl.*.part")):
            return match.id
    return None


def test_a_node_that_lost_a_match_to_the_next_leader_serves_the_recorded_replay(
    postgres_server: Server, tmp_path: Path
) -> None:
    db_url = postgres_server.database()
    store = three_random_bots(db_url, tmp_path)
    first, first_address = serve(db_url, tmp_path, "first")
    second: subprocess.Popen[str] | None = None
    logs = {name: tmp_path / f"{name}.log" for name in ("first", "second")}
    try:
        wait_for("a finished match", lambda: snapshot(store))
        second, _ = serve(db_url, tmp_path, "second")
        wait_for("the standby", lambda: '"runner_standby"' in logs["second"].read_text())
        dropped = wait_for("a match in flight", lambda: in_flight_here(store, tmp_path / "first"))
        os.kill(first.pid, signal.SIGSTOP)  # its workers play on; it cannot commit
        try:
            wait_for("the standby to lead",
                     lambda: '"runner_leading"' in logs["second"].read_text())  # fmt: skip
            wait_for("the match played again", lambda: store.matches.match(dropped).state == DONE)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        wait_for("the old leader to stand by",
                 lambda: logs["first"].read_text().count('"runner_standby"') >= 1)  # fmt: skip
        match = store.matches.match(dropped)
        kept = sorted(p.name for p in (tmp_path / "first" / "replays").glob(f"{dropped}.*"))
        assert match.attempts >= 2 and kept == [f"{dropped}.attempt{match.attempts - 1}.jsonl"]
        with LadderClient(first_address) as ladder:
            for match_id in snapshot(store):
                reply = ladder.replay(match_id)
                recorded = store.matches.match(match_id).replay_sha256
                assert hashlib.sha256(reply.content).hexdigest() == recorded
    finally:
        stop(first, second)
    assert "replay_tampered" not in logs["first"].read_text()
    assert_counted_once(store, snapshot(store))
    store.close()


def add_owners(db_url: str, names: tuple[str, ...]) -> dict[str, str]:
    store = Store.open(db_url, Path.cwd())
    try:
        return {name: store.owners.add_owner(name)[1] for name in names}
    finally:
        store.close()


def test_first_submissions_through_two_nodes_at_once_both_succeed(
    postgres_server: Server, tmp_path: Path
) -> None:
    db_url = postgres_server.database()
    tokens = add_owners(db_url, ("alice", "bob"))
    nodes = [serve(db_url, tmp_path, name) for name in ("a", "b")]
    archives = {
        who: archive.pack_directory(write_bot(tmp_path, f"quick-{who}", "1.0.0", QUICK))
        for who in tokens
    }
    barrier = threading.Barrier(len(tokens))
    outcome: dict[str, str] = {}

    def submit(who: str, address: str) -> None:
        with LadderClient(address, token=tokens[who]) as ladder:
            barrier.wait()
            try:
                outcome[who] = ladder.submit(archives[who])[0].status
            except CallFailed as e:
                outcome[who] = str(e)

    threads = [
        threading.Thread(target=submit, args=(who, address))
        for who, (_, address) in zip(tokens, nodes, strict=True)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        stop(*(proc for proc, _ in nodes))
    assert outcome == {"alice": "pending", "bob": "pending"}
    store = Store.open(db_url, tmp_path)
    assert store.db.scalar("SELECT COUNT(*) FROM owners WHERE name = 'niwa'") == 1
    store.close()


@contextmanager
def uncommitted(store: Store) -> Iterator[None]:
    """A transaction of ``store`` left open while the test runs another node's work."""
    with store.db.transaction():
        yield


def concurrently(db_url: str, tmp_path: Path, work: Callable[[Store], object]) -> list[object]:
    """Run ``work`` on two connections, the second while the first's transaction is
    still open (so it meets its uncommitted rows), then commit the first."""
    first, second = Store.open(db_url, tmp_path), Store.open(db_url, tmp_path)
    got: list[object] = []
    try:
        with uncommitted(first):
            got.append(work(first))
            other = threading.Thread(target=lambda: got.append(work(second)))
            other.start()
            # the second waits on the first's row lock: seen from the server's side
            wait_for("the second to wait", lambda: first.db.scalar(
                "SELECT COUNT(*) FROM pg_locks WHERE NOT granted"))  # fmt: skip
        other.join()
    finally:
        first.close()
        second.close()
    return got


def test_two_nodes_creating_the_built_in_owner_at_once_get_the_same_row(
    postgres_server: Server, tmp_path: Path
) -> None:
    got = concurrently(postgres_server.database(), tmp_path, lambda s: s.owners.system_owner())
    assert len(got) == 2 and got[0] == got[1]


def test_two_nodes_creating_a_built_in_bot_at_once_get_the_same_row(
    postgres_server: Server, tmp_path: Path
) -> None:
    def opponent(store: Store) -> int:
        with store.db.transaction():  # as a submission does, among its other writes
            return submission.builtin_bot(store, "random", "blossom").id

    got = concurrently(postgres_server.database(), tmp_path, opponent)
    assert len(got) == 2 and got[0] == got[1]


def test_two_nodes_setting_one_key_at_once_both_succeed(
    postgres_server: Server, tmp_path: Path
) -> None:
    def setting(store: Store) -> str | None:
        with store.db.transaction():
            store.settings.set_setting("quota.versions", str(id(store)))
            return store.settings.setting("quota.versions")

    got = concurrently(postgres_server.database(), tmp_path, setting)
    assert len(got) == 2 and None not in got


def claimed_twice(store: Store) -> tuple[Match, Match]:
    """One match claimed by a leader, put back when another took over, claimed again."""
    owner, _ = store.owners.add_owner("alice")
    a, b = (store.bots.add_bot(n, "1", "blossom", owner.id, "archive", "h", ACTIVE) for n in "ab")
    store.matches.queue_match("blossom", "blossom@1", [a.id, b.id], 1)
    first = store.matches.claim_next()
    assert first is not None and store.matches.requeue_running() == [first.id]
    again = store.matches.claim_next()
    assert again is not None and again.attempts == first.attempts + 1
    return first, again


def test_a_result_of_a_dropped_attempt_is_not_recorded(store: Store) -> None:
    first, again = claimed_twice(store)
    a, b = first.seats
    done = Finished((SeatResult(0, a, 0, 1.0, "ok"), SeatResult(1, b, 1, 0.0, "ok")), 2, 0.1,
                    "0" * 64)  # fmt: skip
    assert not store.matches.finish_match(first.id, done, attempt=first.attempts)
    assert store.matches.finish_match(again.id, done, attempt=again.attempts)


def test_a_dropped_attempt_is_not_handed_back_over_the_running_one(store: Store) -> None:
    first, again = claimed_twice(store)
    assert store.matches.hand_back([first]) == []
    assert store.matches.hand_back([again]) == [again.id]
    assert store.matches.match(again.id).state == QUEUED
