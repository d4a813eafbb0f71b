"""``niwa ladder drain`` on real served ladders (PostgreSQL, a leader and a standby): the
drained runner claims nothing more, finishes or hands back its match, releases the
lease and exits 0; the standby plays on; no match is lost or counted twice."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from niwa.cli import main
from niwa.commands import ladder_ops
from niwa.ladder import submission
from niwa.ladder.lease import Lease
from niwa.ladder.store import ACTIVE, DONE, Store
from tests.ladder.serving import PATIENCE_S, start_ladder, wait_for
from tests.ladder.test_crash import assert_counted_once, snapshot
from tests.ladder.test_failover_races import in_flight_here, stop
from tests.postgres import Server


def slow_bots(db_url: str, data: Path) -> Store:
    """Two searching bots: a match lasts seconds, long enough to be in flight."""
    store = Store.open(db_url, data)
    for k in range(2):
        submission.builtin_bot(store, "mcts?seconds=0.1", "blossom", ACTIVE, alias=f"mcts-{k}")
    return store


def serve(db_url: str, tmp_path: Path, name: str) -> subprocess.Popen[str]:
    (tmp_path / name).mkdir()
    # a 6 s lease: a 2 s one was lost by a leader renewing it on a machine running two
    # suites at once (a clean clone failed so), and the drain then rightly said so
    flags = ("--data", str(tmp_path / name), "--node", name, "--lease", "6", "--workers", "1")
    return start_ladder(db_url, tmp_path / f"{name}.log", *flags)[0]


def drain(db_url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "drain", "--db", db_url, *flags],
        capture_output=True, text=True, timeout=4 * PATIENCE_S, check=False,
    )  # fmt: skip


def events(log: Path, event: str) -> list[dict[str, Any]]:
    lines = (json.loads(line) for line in log.read_text().splitlines() if line.startswith("{"))
    return [line for line in lines if line.get("event") == event]


def recorded_by(log: Path, match_id: int) -> bool:
    return any(e["match"] == match_id for e in events(log, "match_recorded"))


def in_flight_at_drain(log: Path) -> list[int]:
    """The matches the runner had in flight when it took the drain request (a runner
    of one worker that plays without pause has one)."""
    [draining] = events(log, "runner_draining")
    matches = draining["matches"]
    assert matches
    return [int(m) for m in matches]


@pytest.fixture
def ladder(postgres_server: Server, tmp_path: Path) -> tuple[str, Store]:
    db_url = postgres_server.database()
    return db_url, slow_bots(db_url, tmp_path)


def two_nodes(db_url: str, tmp_path: Path) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    first = serve(db_url, tmp_path, "first")
    wait_for("the first to lead", lambda: events(tmp_path / "first.log", "runner_leading"))
    second = serve(db_url, tmp_path, "second")
    wait_for("the standby", lambda: events(tmp_path / "second.log", "runner_standby"))
    return first, second


@contextmanager
def drained_mid_match(
    ladder: tuple[str, Store], tmp_path: Path, *flags: str
) -> Iterator[tuple[str, list[int]]]:
    """A leader and a standby; the leader drained (``flags``) while it plays a match:
    the command's output and the matches in flight then. The leader has exited 0.
    After the test's checks the standby is stopped and every match counted once."""
    db_url, store = ladder
    first, second = two_nodes(db_url, tmp_path)
    try:
        wait_for("a match in flight", lambda: in_flight_here(store, tmp_path / "first"))
        drained = drain(db_url, *flags)
        assert drained.returncode == 0, drained.stdout + drained.stderr
        assert first.wait(timeout=PATIENCE_S) == 0
        yield drained.stdout, in_flight_at_drain(tmp_path / "first.log")
    finally:
        stop(first, second)
    assert_counted_once(store, snapshot(store))
    store.close()


def test_a_drained_leader_finishes_its_match_releases_the_lease_and_exits_0(
    ladder: tuple[str, Store], tmp_path: Path
) -> None:
    store = ladder[1]
    with drained_mid_match(ladder, tmp_path) as (said, in_flight):
        for match_id in in_flight:
            assert store.matches.match(match_id).state == DONE
            assert recorded_by(tmp_path / "first.log", match_id)
        assert f"first drained: {len(in_flight)} finished, 0 handed back" in said
        assert "lease released" in said
        wait_for("the standby to lead", lambda: events(tmp_path / "second.log", "runner_leading"))
        done = len(snapshot(store))
        wait_for("a match the new leader played", lambda: len(snapshot(store)) > done)


def test_a_drain_past_its_deadline_hands_the_match_back_for_the_standby_to_play(
    ladder: tuple[str, Store], tmp_path: Path
) -> None:
    store = ladder[1]
    with drained_mid_match(ladder, tmp_path, "--deadline", "0") as (said, in_flight):
        [gone] = events(tmp_path / "first.log", "runner_drained")
        assert gone["handed_back"] == in_flight
        assert f"{len(in_flight)} handed back" in said
        for match_id in in_flight:
            wait_for("the standby to play it", lambda: store.matches.match(match_id).state == DONE)  # noqa: B023
            # its match_recorded line follows the commit: it may come a little later
            wait_for("the standby's log of it",
                     lambda: recorded_by(tmp_path / "second.log", match_id))  # noqa: B023
            assert not recorded_by(tmp_path / "first.log", match_id)


def test_draining_a_standby_stops_it_and_leaves_the_leader_playing(
    ladder: tuple[str, Store], tmp_path: Path
) -> None:
    db_url, store = ladder
    first, second = two_nodes(db_url, tmp_path)
    try:
        drained = drain(db_url, "--node", "second")
        assert drained.returncode == 0, drained.stdout + drained.stderr
        assert "second drained:" in drained.stdout and "it was standing by" in drained.stdout
        assert second.wait(timeout=PATIENCE_S) == 0
        holder = Lease(store.db, "test", 1.0).current()
        assert holder is not None and holder.holder == "first" and first.poll() is None
    finally:
        stop(first, second)
    store.close()


def test_drain_without_a_leader_says_there_is_nothing_to_drain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "ladder.db")
    Store.open(db).close()
    assert main(["ladder", "drain", "--db", db]) == 2
    assert "no runner holds the lease of this store" in capsys.readouterr().err


def test_a_drain_no_runner_takes_gives_up_naming_sigterm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "ladder.db")
    Store.open(db).close()
    monkeypatch.setattr(ladder_ops, "ACK_S", 0.0)
    assert main(["ladder", "drain", "--db", db, "--node", "ghost"]) == 1
    assert "ghost did not take the request" in capsys.readouterr().out
    store = Store.open(db)
    assert store.settings.setting("drain:ghost") is None  # the request does not outlive the command
    store.close()
