"""A rolling upgrade with two checkouts of niwa: a leader of the previous niwa and a
standby of this one on one PostgreSQL store, which the new node migrates under the old
leader. The old leader is stopped (it predates ``niwa ladder drain``, so by SIGTERM,
which hands its matches back and releases the lease); this niwa's standby takes over at
once and plays every match that was queued or running: none lost, none counted twice,
and it serves the old leader's replays."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.ladder.client import LadderClient
from niwa.ladder.store import DONE, RUNNING, Store
from tests.ladder.serving import PATIENCE_S, printed_address, start_ladder, wait_for
from tests.ladder.test_crash import assert_counted_once, snapshot
from tests.ladder.test_drain import events, recorded_by, slow_bots
from tests.ladder.test_failover_races import stop
from tests.postgres import Server

#: main before drain and the attempt-named replays (schema 6): the previous niwa.
OLD_COMMIT = "aaf133c458a05d304a3fafa17fbcd75df4284fd5"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def old_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous niwa's source, run from its folder by this interpreter (its
    dependencies are this one's). NIWA_OLD_TREE: a checkout made beforehand."""
    given = os.environ.get("NIWA_OLD_TREE")
    if given:
        return Path(given)
    tree = tmp_path_factory.mktemp("old-niwa")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", OLD_COMMIT],
        capture_output=True, check=False,
    )  # fmt: skip
    if archive.returncode != 0:
        pytest.skip(f"needs the git history holding {OLD_COMMIT[:10]} (the previous niwa)")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    own_metadata(tree)
    return tree


def own_metadata(tree: Path) -> None:
    """The old niwa's own distribution metadata in its folder: its games' entry points
    name its own modules (``engine.rulesets...``), and ``importlib.metadata`` takes the
    first ``niwa`` on the path, so the installed one's (``niwa.engine...``) is not seen."""
    project = tomllib.loads((tree / "pyproject.toml").read_text())["project"]
    info = tree / f"niwa-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: niwa\nVersion: {project['version']}\n"
    )
    groups = project.get("entry-points", {})
    scripts = {"console_scripts": project.get("scripts", {})}
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in {**groups, **scripts}.items()
    ))  # fmt: skip


def old_niwa(*args: str) -> list[str]:
    """The command running the old niwa (from its tree: see :func:`old_env`)."""
    return [sys.executable, "-m", "niwa", *args]


def old_env(tree: Path) -> dict[str, str]:
    """Imports resolve to the old tree first (this checkout is installed editable, by
    a finder that comes after the path)."""
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONUNBUFFERED": "1"}


def serve_old(tree: Path, db_url: str, tmp_path: Path, name: str) -> subprocess.Popen[str]:
    (tmp_path / name).mkdir()
    log = tmp_path / f"{name}.log"
    command = old_niwa(
        "ladder", "serve", "--db", db_url, "--data", str(tmp_path / name),
        "--node", name, "--lease", "2", "--workers", "1", "--listen", "127.0.0.1:0",
    )  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=tree, env=old_env(tree), stdout=subprocess.PIPE, stderr=log.open("a"),
        text=True,
    )  # fmt: skip
    printed_address(proc, r"serving on (\S+)", log)
    return proc


@pytest.fixture
def nodes(
    old_tree: Path, postgres_server: Server, tmp_path: Path
) -> Iterator[tuple[Store, subprocess.Popen[str], str]]:
    """An old leader and a new standby on one store: the store, the old leader, the new
    node's API address."""
    db_url = postgres_server.database()
    # The old leader makes the store at its schema; this niwa then migrates it under
    # the running leader, as the first new node of a rolling upgrade does.
    old = serve_old(old_tree, db_url, tmp_path, "old")
    store: Store | None = None
    new: subprocess.Popen[str] | None = None
    try:
        wait_for("the old leader", lambda: events(tmp_path / "old.log", "runner_leading"))
        store = slow_bots(db_url, tmp_path)
        (tmp_path / "new").mkdir()
        new, address = start_ladder(
            db_url, tmp_path / "new.log", "--data", str(tmp_path / "new"), "--node", "new",
            "--lease", "2", "--workers", "1",
        )  # fmt: skip
        wait_for("the new standby", lambda: events(tmp_path / "new.log", "runner_standby"))
        yield store, old, address
    finally:
        stop(old, new)
        if store is not None:
            store.close()


def test_the_old_checkout_is_the_previous_niwa(old_tree: Path) -> None:
    run = subprocess.run(
        old_niwa("ladder", "drain", "--help"), cwd=old_tree, env=old_env(old_tree),
        capture_output=True, text=True, timeout=PATIENCE_S, check=False,
    )  # fmt: skip
    assert run.returncode == 2 and "invalid choice: 'drain'" in run.stderr


def test_a_new_standby_takes_over_from_an_old_leader_and_loses_no_match(
    nodes: tuple[Store, subprocess.Popen[str], str], tmp_path: Path
) -> None:
    store, old, address = nodes
    wait_for("a match the old leader played", lambda: snapshot(store))
    wait_for("a match in flight", lambda: store.matches.matches(state=RUNNING, limit=10))
    old.send_signal(signal.SIGTERM)  # the old niwa's clean stop: hand back, release
    assert old.wait(timeout=PATIENCE_S) == 0
    [handed_back] = events(tmp_path / "old.log", "matches_requeued")
    by_old = {e["match"] for e in events(tmp_path / "old.log", "match_recorded")}
    # the new node may have played some already: the old one exits once its worker
    # ends the match it was playing (which the old niwa never records)
    queue = [m.id for m in store.matches.matches(limit=1000) if m.id not in by_old]
    assert handed_back["matches"] and set(handed_back["matches"]) <= set(queue)
    wait_for("the new leader", lambda: events(tmp_path / "new.log", "runner_leading"))
    for match_id in queue:  # what was queued or running when the old leader stopped
        wait_for(f"match {match_id} played", lambda: store.matches.match(match_id).state == DONE)  # noqa: B023
        # the runner logs match_recorded after its commit (and the checks that follow
        # it): on a busy machine the log line may come a little after the state
        wait_for(f"match {match_id} recorded by the new node",
                 lambda: recorded_by(tmp_path / "new.log", match_id))  # noqa: B023
    assert by_old <= set(snapshot(store))
    assert_counted_once(store, snapshot(store))
    with LadderClient(address) as ladder:  # the new node serves what the old one played
        for match_id in sorted(by_old):
            reply = ladder.replay(match_id)
            recorded = store.matches.match(match_id).replay_sha256
            assert hashlib.sha256(reply.content).hexdigest() == recorded
