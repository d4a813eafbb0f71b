"""``kill -9`` of a running ladder, then a restart: no finished match is lost, none is
counted twice, and the matches that were running are played again."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
from pathlib import Path

from niwa.ladder import elo, submission
from niwa.ladder.store import ACTIVE, DONE, RATED, RUNNING, Store
from tests.ladder.serving import alive, children, pool_workers, start_ladder, wait_for
from tests.postgres import Server

KILLS = 3


def snapshot(store: Store) -> dict[int, list[tuple[int, int, int]]]:
    """Every finished match: (seat, bot, place) per seat."""
    rows = store.db.execute(
        "SELECT r.match_id, r.seat, r.bot_id, r.place FROM results r "
        "JOIN matches m ON m.id = r.match_id WHERE m.state = ? ORDER BY r.match_id, r.seat",
        (DONE,),
    )
    done: dict[int, list[tuple[int, int, int]]] = {}
    for r in rows:
        done.setdefault(r["match_id"], []).append((r["seat"], r["bot_id"], r["place"]))
    return done


def running(store: Store) -> list[int]:
    return [m.id for m in store.matches.matches(state=RUNNING, limit=100)]


def three_random_bots(db_url: str, data: Path) -> Store:
    store = Store.open(db_url, data)
    for k in range(3):
        submission.builtin_bot(store, "random", "blossom", ACTIVE, alias=f"random-{k}")
    return store


def test_kill_9_then_restart_loses_nothing_and_counts_nothing_twice(
    db_url: str, tmp_path: Path
) -> None:
    db, data = db_url, ("--data", str(tmp_path))
    log = tmp_path / "ladder.log"
    store = three_random_bots(db_url, tmp_path)
    before: dict[int, list[tuple[int, int, int]]] = {}
    interrupted: set[int] = set()
    for _ in range(KILLS):
        proc, _address = start_ladder(db, log, *data)
        target = len(before) + 3
        # Kill while it is busy: a few more matches done and at least one running.
        wait_for(
            "more finished matches and one running",
            lambda: len(snapshot(store)) >= target and running(store),  # noqa: B023
        )
        workers = children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        interrupted |= set(running(store))
        after = snapshot(store)
        assert {m: after[m] for m in before} == before  # nothing finished was lost
        before = after
        # The workers (and any bot they ran) die with the ladder.
        wait_for("the workers to die", lambda: not any(alive(p) for p in workers))  # noqa: B023
    assert interrupted, "no match was running at any kill"

    proc, _address = start_ladder(db, log, *data)
    try:
        wait_for(
            "the interrupted matches to be played again",
            lambda: all(store.matches.match(m).state == DONE for m in interrupted),
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    final = snapshot(store)
    assert {m: final[m] for m in before} == before
    assert all(store.matches.match(m).attempts >= 2 for m in interrupted)
    assert_counted_once(store, final)
    store.close()


def assert_counted_once(store: Store, final: dict[int, list[tuple[int, int, int]]]) -> None:
    # Counted once: the stored ratings are exactly the Elo updates of the finished
    # matches, each applied once, in the order they finished.
    ratings = {b.id: elo.BASE for b in store.bots.bots()}
    games = dict.fromkeys(ratings, 0)
    for match in sorted(store.matches.matches(state=DONE, limit=10_000), key=lambda m: m.seq or 0):
        assert match.kind == RATED
        seats = final[match.id]
        bots = [bot for _, bot, _ in seats]
        updated = elo.update([ratings[b] for b in bots], [place for _, _, place in seats])
        ratings.update(zip(bots, updated, strict=True))
        for b in bots:
            games[b] += 1
        # ... and each has its complete replay, kept in the store.
        data = store.files.blob(match.replay_sha256 or "")
        assert data is not None and hashlib.sha256(data).hexdigest() == match.replay_sha256
    history = store.db.scalar("SELECT COUNT(*) FROM rating_history")
    assert history == sum(len(s) for s in final.values())
    for bot in store.bots.bots():
        assert bot.games == games[bot.id]
        assert abs(bot.elo - ratings[bot.id]) < 1e-9


def serve_node(db_url: str, tmp_path: Path, name: str) -> subprocess.Popen[str]:
    """A node of a ladder on two machines: its own folder, a short lease."""
    (tmp_path / name).mkdir()
    flags = ("--data", str(tmp_path / name), "--node", name, "--lease", "2")
    return start_ladder(db_url, tmp_path / f"{name}.log", *flags)[0]


def test_a_standby_runner_takes_over_from_a_killed_leader(db_url: str, tmp_path: Path) -> None:
    store = three_random_bots(db_url, tmp_path)

    def serve(name: str) -> subprocess.Popen[str]:
        return serve_node(db_url, tmp_path, name)

    leader = serve("first")
    wait_for("a finished match", lambda: snapshot(store))
    standby = serve("second")
    try:
        second_log = tmp_path / "second.log"
        wait_for("the standby", lambda: '"event": "runner_standby"' in second_log.read_text())
        done = len(snapshot(store))
        wait_for("more finished matches", lambda: len(snapshot(store)) >= done + 3)
        assert '"event": "match_recorded"' not in second_log.read_text()  # one schedules
        before = snapshot(store)
        os.kill(leader.pid, signal.SIGKILL)
        leader.wait()
        wait_for("the standby to lead", lambda: '"runner_leading"' in second_log.read_text())
        wait_for("matches the standby played", lambda: len(snapshot(store)) >= len(before) + 3)
    finally:
        for proc in (leader, standby):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            proc.wait()
    final = snapshot(store)
    assert {m: final[m] for m in before} == before
    assert_counted_once(store, final)
    # its own lines and its workers' name it
    named = [json.loads(line) for line in second_log.read_text().splitlines()
             if '"event": "match_started"' in line]  # fmt: skip
    assert named and all(line["node"] == "second" for line in named)
    store.close()


def test_a_worker_killed_mid_match_costs_only_a_replay_of_that_match(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    store = three_random_bots(str(db), tmp_path)
    proc, _address = start_ladder(db, tmp_path / "ladder.log")
    try:
        wait_for("a finished match and one running", lambda: snapshot(store) and running(store))
        workers = sorted(pool_workers(proc.pid))
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        done_before = len(snapshot(store))
        # The ladder carries on with a fresh pool, and nothing stays "running" for ever.
        wait_for("more finished matches", lambda: len(snapshot(store)) >= done_before + 5)
        assert proc.poll() is None
        stuck = set(running(store))
        wait_for("the matches running then to finish", lambda: not stuck & set(running(store)))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    assert {m.state for m in store.matches.matches(limit=10_000)} <= {DONE, "queued"}
    assert '"event": "worker_pool_broken"' in (tmp_path / "ladder.log").read_text()
    store.close()


def test_a_leader_that_stalled_past_its_lease_gives_way_and_nothing_counts_twice(
    postgres_server: Server, tmp_path: Path
) -> None:
    # PostgreSQL only: a paused process of a SQLite ladder is on the same machine as
    # the others, and one paused inside a write holds the whole file's lock.
    db_url = postgres_server.database()
    store = three_random_bots(db_url, tmp_path)
    first = serve_node(db_url, tmp_path, "first")
    second: subprocess.Popen[str] | None = None
    logs = {name: tmp_path / f"{name}.log" for name in ("first", "second")}
    try:
        wait_for("a finished match", lambda: snapshot(store))
        second = serve_node(db_url, tmp_path, "second")
        wait_for("the standby", lambda: '"runner_standby"' in logs["second"].read_text())
        os.kill(first.pid, signal.SIGSTOP)  # a paused machine: its heartbeat stops
        try:
            wait_for("the standby to lead",
                     lambda: '"runner_leading"' in logs["second"].read_text())  # fmt: skip
            done = len(snapshot(store))
            wait_for("matches the new leader played", lambda: len(snapshot(store)) >= done + 2)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        # It finds its lease lost; or, paused inside a write, its session was ended by
        # the new leader (so its locks held no one up). Either way it stands by again.
        wait_for("the old leader to give way",
                 lambda: '"lease_lost"' in logs["first"].read_text()
                 or '"store_connection_lost"' in logs["first"].read_text())  # fmt: skip
        wait_for("the old leader to stand by",
                 lambda: logs["first"].read_text().count('"runner_standby"') >= 1)  # fmt: skip
        assert first.poll() is None
        done = len(snapshot(store))
        wait_for("more matches", lambda: len(snapshot(store)) >= done + 2)
    finally:
        for proc in (first, second):
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait()
    assert_counted_once(store, snapshot(store))
    store.close()


def test_a_runner_whose_session_was_ended_reconnects_and_plays_on(
    postgres_server: Server, tmp_path: Path
) -> None:
    # What a runner that was paused inside a write finds when it wakes: its session
    # ended by the runner that took over (or by an operator, or a server restart).
    db_url = postgres_server.database()
    store = three_random_bots(db_url, tmp_path)
    node = serve_node(db_url, tmp_path, "only")
    log = tmp_path / "only.log"
    try:
        wait_for("a finished match", lambda: snapshot(store))
        wait_for("its session ended", lambda: store.db.end_sessions("only"))
        wait_for("the runner to notice", lambda: '"store_connection_lost"' in log.read_text())
        done = len(snapshot(store))
        wait_for("more matches", lambda: len(snapshot(store)) >= done + 2)
        assert node.poll() is None
    finally:
        node.send_signal(signal.SIGTERM)
        node.wait()
    assert_counted_once(store, snapshot(store))
    store.close()
