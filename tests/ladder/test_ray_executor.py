"""Matches on a real two-node Ray cluster (:mod:`tests.ladder.ray_cluster`): they run on
both nodes, a node killed mid-match loses and doubles nothing, the results equal the
local pool's for the same seed, and a submitted bot reaches a node by its hash."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from niwa.ladder import archive, executors, submission
from niwa.ladder.lease import Lease
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, DONE, RUNNING, Store
from niwa.referee.cgroups import LimitsUnavailable
from tests.captured_logs import every_event
from tests.ladder.serving import start_ladder
from tests.ladder.test_crash import assert_counted_once, snapshot, three_random_bots
from tests.ladder.tiny_bots import QUICK, write_bot
from tests.polling import wait_for

pytest.importorskip("ray", reason="the Ray executor's tests need Ray: pip install 'niwa[ray]'")

from niwa.ladder import ray_bridge, ray_executor
from niwa.ladder.ray_executor import Expected, niwa_version, node_problem, upgrade_step
from tests.ladder.ray_cluster import Cluster, refresh_ray_config, still_running

#: Matches on Ray start slowly on a busy machine (a worker process per task at first).
RAY_PATIENCE_S = 600.0

pytestmark = pytest.mark.skipif(
    not Path("/usr/bin/bwrap").exists(), reason="sandboxed bots need bubblewrap"
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The cluster, this process its driver (with its token) for the module's tests."""
    made = Cluster(tmp_path_factory.mktemp("ray"))
    try:
        made.start()
        with made.driver():
            yield made
    finally:
        made.stop()


@pytest.fixture
def logged() -> Iterator[list[dict[str, Any]]]:
    """Every log event of the test, whatever an earlier test configured."""
    with every_event() as events:
        yield events


def settings(
    store: Store, matches: int | None, executor: str, address: str = ""
) -> Settings:
    return Settings(
        str(store.data_dir / "ladder.db"), store.data_dir, max_matches=matches, seed=7,
        log_level="warning", games=("blossom",), builtins_in_process=False,
        executor=executor, ray_address=address, workers=2,
    )  # fmt: skip


def ran_on(events: list[dict[str, Any]]) -> dict[int, list[str]]:
    """Match id -> the nodes its results came from, per the executor's logs."""
    nodes: dict[int, list[str]] = {}
    for e in events:
        if e["event"] == "match_ran":
            nodes.setdefault(e["match"], []).append(e["ran_on"])
    return nodes


#: Replay fields that measure time (a clock's bank too): they differ from run to run.
TIMES = frozenset({"started", "wall_ms", "cpu_ms", "clock_ms"})


def timeless(replay: bytes) -> list[Any]:
    """A replay without the times it was played at and took."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMES}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return [strip(json.loads(line)) for line in replay.splitlines()]


def played(store: Store) -> list[tuple[Any, ...]]:
    """Each finished match: seats, seed, places, scores, decisions, replay sans times."""
    found = []
    for match in sorted(store.matches.matches(state=DONE, limit=1000), key=lambda m: m.id):
        replay = store.files.blob(match.replay_sha256 or "")
        assert replay is not None
        results = store.matches.results(match.id)
        found.append((
            match.seats, match.seed, [r.place for r in results], [r.score for r in results],
            match.decisions, timeless(replay),
        ))  # fmt: skip
    return found


def test_results_for_a_seed_equal_the_local_pools(cluster: Cluster, tmp_path: Path) -> None:
    results = {}
    for executor in executors.KINDS:
        store = three_random_bots(str(tmp_path / executor / "ladder.db"), tmp_path / executor)
        Runner(settings(store, 4, executor, cluster.address)).run(threading.Event())
        results[executor] = played(store)
        store.close()
    assert len(results[executors.LOCAL]) == 4
    assert results[executors.RAY] == results[executors.LOCAL]


def test_a_submitted_bot_reaches_a_node_by_its_hash(cluster: Cluster, tmp_path: Path) -> None:
    store = three_random_bots(str(tmp_path / "data" / "ladder.db"), tmp_path / "data")
    owner, _ = store.owners.add_owner("alice")
    data = archive.pack_directory(write_bot(tmp_path, "quick", "0.2.0", QUICK))
    (bot,) = submission.submit(store, owner, data)
    stop = threading.Event()
    runner = threading.Thread(
        target=Runner(settings(store, None, executors.RAY, cluster.address)).run, args=(stop,)
    )
    runner.start()
    try:
        wait_for(
            "the validation match", lambda: store.bots.bot(bot.id).status == ACTIVE, RAY_PATIENCE_S
        )
    finally:
        stop.set()
        runner.join()
    digest = archive.content_hash(data)
    cached = [cluster.root / f"cache-{n}" / "bots" / digest for n in ("node-a", "node-b")]
    assert any((folder / "bot" / "bot.toml").is_file() for folder in cached)
    store.close()


def test_a_cluster_whose_nodes_all_refuse_stops_the_runner_saying_why(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logged: list[dict[str, Any]]
) -> None:
    # A runner of another niwa version than every node's (only the runner's side changes).
    monkeypatch.setattr(ray_executor, "niwa_version", lambda: "0.0.0-other")
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    why = f"it runs niwa {niwa_version()}, the runner 0.0.0-other: " + upgrade_step("0.0.0-other")
    with pytest.raises(LimitsUnavailable, match=re.escape(why)):
        Runner(settings(store, 2, executors.RAY, cluster.address)).run(threading.Event())
    refused = {e["ray_node"]: e["reason"] for e in logged if e["event"] == "node_refused"}
    assert refused.keys() == {"node-a", "node-b"} and set(refused.values()) == {why}
    assert snapshot(store) == {}
    assert not store.matches.matches(state=RUNNING)  # handed back to the queue
    store.close()


def test_matches_run_on_both_nodes_and_a_killed_node_loses_and_doubles_nothing(
    cluster: Cluster, tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    run = Runner(settings(store, None, executors.RAY, cluster.address))
    stop = threading.Event()
    runner = threading.Thread(target=run.run, args=(stop,))
    runner.start()
    try:
        # Kill node-b while it plays: after a few of its matches, with one running.
        wait_for("three matches on node-b", lambda: sum(
            n == ["node-b"] for n in ran_on(logged).values()
        ) >= 3, RAY_PATIENCE_S)  # fmt: skip
        on_node_b = cluster.kill_node_b()
        # The runner plays on until it has seen node-b gone (Ray calls a node dead only
        # after its heartbeats stop: a fixed number of matches could all end before)
        # and node-a has played some more; then it stops, handing back what runs.
        wait_for("node-b reported lost", lambda: any(
            e["event"] == "ray_node_lost" for e in logged
        ), RAY_PATIENCE_S)  # fmt: skip
        after = len(ran_on(logged))
        wait_for("three more matches", lambda: len(ran_on(logged)) >= after + 3, RAY_PATIENCE_S)
    finally:
        stop.set()
        runner.join(timeout=RAY_PATIENCE_S)
    assert not runner.is_alive()
    # nothing that ran under node-b's raylet outlives it: no bot, frozen or not
    assert on_node_b  # its workers at least
    wait_for("node-b's bots to end", lambda: not still_running(on_node_b), RAY_PATIENCE_S)
    assert [e["ray_node"] for e in logged if e["event"] == "ray_node_lost"] == ["node-b"]
    nodes = ran_on(logged)
    assert {n for found in nodes.values() for n in found} == {"node-a", "node-b"}
    final = snapshot(store)
    assert final.keys() == nodes.keys()  # every result that came back is recorded, no other
    assert all(len(found) == 1 for found in nodes.values())  # each result came back once
    assert_counted_once(store, final)
    store.close()


def test_a_node_of_another_niwa_version_is_refused_naming_the_upgrade(
    cluster: Cluster, tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    old = cluster.join("node-c", version="0.0.0-old")
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    try:
        Runner(settings(store, 4, executors.RAY, cluster.address)).run(threading.Event())
    finally:
        cluster.leave(old)
    refused = [(e["ray_node"], e["reason"]) for e in logged if e["event"] == "node_refused"]
    assert refused == [
        ("node-c", f"it runs niwa 0.0.0-old, the runner {niwa_version()}: "
         + upgrade_step(niwa_version()))
    ]  # fmt: skip
    assert {n for found in ran_on(logged).values() for n in found} <= {"node-a", "node-b"}
    assert len(snapshot(store)) == 4
    store.close()


def test_the_executors_events_name_the_runners_node(
    cluster: Cluster, tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    run = Runner(replace(settings(store, 2, executors.RAY, cluster.address), node="runner-x"))
    run.run(threading.Event())
    named = {"ray_connected", "leftovers_cleaned", "match_ran", "ray_node_joined"}
    events = [e for e in logged if e["event"] in named]
    assert {e["event"] for e in events} == named
    assert {e["node"] for e in events} == {"runner-x"}
    store.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_a_stop_signal_hands_the_lease_and_the_running_matches_to_the_standby(
    cluster: Cluster, tmp_path: Path, logged: list[dict[str, Any]], signum: signal.Signals
) -> None:
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    log = tmp_path / "leader.log"
    # a lease of 60 s: a takeover before it runs out is the release's doing
    leader, _ = start_ladder(tmp_path / "ladder.db", log, "--game", "blossom", "--node",
                             "leader", "--lease", "60", "--executor", "ray",
                             "--ray-address", cluster.address)  # fmt: skip
    standby = Runner(replace(settings(store, 3, executors.RAY, cluster.address), node="standby"))
    thread = threading.Thread(target=standby.run, args=(threading.Event(),))
    try:
        wait_for("the leader's matches", lambda: len(snapshot(store)) >= 3, RAY_PATIENCE_S)
        thread.start()
        wait_for("the standby", lambda: any(e["event"] == "runner_standby" for e in logged))
        leader.send_signal(signum)
        assert leader.wait(timeout=RAY_PATIENCE_S) == 0
        thread.join(timeout=RAY_PATIENCE_S)
    finally:
        leader.kill()
    assert not thread.is_alive()
    text = log.read_text()
    assert "Traceback" not in text and "SIGTERM received" not in text
    released = [e for e in json_events(text) if e["event"] == "lease_released"]
    assert len(released) == 1 and released[0]["signal"] == signum.name
    assert released[0]["after_signal_s"] <= 2.0  # as the leader measured it
    took = [e["event"] for e in logged if e["event"] in ("runner_leading", "lease_taken_over")]
    assert took == ["runner_leading"]  # a released lease, not one taken from its holder
    assert not store.matches.matches(state=RUNNING)
    assert_counted_once(store, snapshot(store))
    store.close()


def json_events(text: str) -> list[dict[str, Any]]:
    """The JSON log events among a process's stderr lines."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_runner_without_the_clusters_token_is_refused_saying_how_to_give_it(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH")
    refresh_ray_config()
    try:
        with pytest.raises(ConnectionError, match=re.escape(
            f"the Ray cluster at {cluster.address} wants its token and this process has none "
            "or another: set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH="
        )):  # fmt: skip
            ray_executor.RayExecutor(cluster.address, "warning", lambda digest: b"")
    finally:
        monkeypatch.undo()
        refresh_ray_config()


def test_a_node_with_another_niwa_version_refuses_matches() -> None:
    expected = Expected("0.0.0-other", "1", "info")
    problem = node_problem("blossom", expected)
    assert f"niwa {niwa_version()} is installed here, the runner has 0.0.0-other" in problem


def test_a_node_without_bubblewrap_refuses_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    problem = node_problem("blossom", Expected(niwa_version(), "1", "info"))
    assert problem.startswith("bubblewrap is not installed here")


LEASE_S = 4.0


@contextlib.contextmanager
def leader(store: Store, address: str) -> Iterator[threading.Thread]:
    """A runner on the Ray executor (lease :data:`LEASE_S`), running in a thread until
    the block ends; then stopped, and it must end."""
    stop = threading.Event()
    runner = threading.Thread(target=Runner(replace(
        settings(store, None, executors.RAY, address), node="leader", lease_s=LEASE_S
    )).run, args=(stop,))  # fmt: skip
    runner.start()
    try:
        yield runner
    finally:
        stop.set()
        runner.join(timeout=RAY_PATIENCE_S)
    assert not runner.is_alive()


def retried_twice(store: Store, address: str, logged: list[dict[str, Any]]) -> str:
    """Run a leader until it failed to join twice; the first failure's error."""
    with leader(store, address) as runner:
        wait_for("two attempts", lambda: len(unreachable(logged)) >= 2, RAY_PATIENCE_S)
        assert runner.is_alive() and holder(store) == "leader"  # waiting, not beaten
    return str(unreachable(logged)[0]["error"])


@contextlib.contextmanager
def mute_head() -> Iterator[str]:
    """The address of a port whose connections the kernel accepts and nobody answers."""
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(16)
        yield f"127.0.0.1:{mute.getsockname()[1]}"


def holder(store: Store) -> str:
    current = Lease(store.db, "test", LEASE_S).current()
    return current.holder if current else ""


def test_a_runner_started_while_the_head_is_down_says_so_and_retries(
    tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    with socket.socket() as unused:  # a port nothing listens on: a head that is down
        unused.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{unused.getsockname()[1]}"
    assert address in retried_twice(store, address, logged)
    store.close()


def test_a_runner_keeps_its_lease_while_its_driver_joins_a_mute_head_and_stops_when_asked(
    tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    """Joining takes seconds on a busy machine, and for ever on a head that accepts
    connections and never answers: the leader renews its lease all the while (a
    standby would otherwise take over), and a stop ends the joining."""
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    with mute_head() as address, leader(store, address):
        wait_for("the leader's lease", lambda: holder(store) == "leader", RAY_PATIENCE_S)
        for _ in range(3):  # three of the lease's terms, each renewed by the leader
            threading.Event().wait(LEASE_S)
            assert not Lease(store.db, "standby", LEASE_S).acquire()
        assert not unreachable(logged)  # still joining (it gives up after 180 s)
    assert not unreachable(logged)  # the stop ended the joining
    assert not [e for e in logged if e["event"] == "lease_lost"]
    store.close()


def test_a_runner_gives_up_joining_a_mute_head_after_a_while_says_so_and_retries(
    tmp_path: Path, logged: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ray itself waits for ever on a head that never answers (eight minutes seen)."""
    monkeypatch.setattr(ray_bridge, "JOIN_S", 3.0)  # of the default 180
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    with mute_head() as address:
        error = retried_twice(store, address, logged)
    assert f"the Ray cluster at {address} did not let this runner join within 3 s" in error
    store.close()


def test_a_lost_head_is_logged_once_and_play_resumes_when_it_returns(
    cluster: Cluster, tmp_path: Path, logged: list[dict[str, Any]]
) -> None:
    # last in the module: the head comes back as a new cluster (node-b is gone by now)
    store = three_random_bots(str(tmp_path / "ladder.db"), tmp_path)
    with leader(store, cluster.address) as runner:
        wait_for("a match on the cluster", lambda: ran_on(logged), RAY_PATIENCE_S)
        cluster.stop_head()
        wait_for("the loss to be logged", lambda: lost(logged), RAY_PATIENCE_S)
        # the lease (4 s) outlives several of its terms while the head is away
        wait_for("three attempts to reconnect", lambda: len(unreachable(logged)) >= 3,
                 RAY_PATIENCE_S)  # fmt: skip
        assert runner.is_alive() and holder(store) == "leader"
        assert not store.matches.matches(state=RUNNING)  # handed back, not lost
        cluster.start_head()
        wait_for("a match after the head came back", lambda: any(
            e["event"] == "match_ran" for e in logged[logged.index(lost(logged)[0]):]
        ), RAY_PATIENCE_S)  # fmt: skip
    assert [e["node"] for e in lost(logged)] == ["leader"]
    assert [e["event"] for e in logged if e["event"] == "executor_reconnected"] == [
        "executor_reconnected"
    ]
    assert not store.matches.matches(state=RUNNING)
    assert_counted_once(store, snapshot(store))
    store.close()


def lost(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "ray_connection_lost"]


def unreachable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "executor_unreachable"]
