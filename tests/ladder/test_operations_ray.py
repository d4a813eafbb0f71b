"""A `niwa ladder serve --executor ray` process (JSON logs, `--http`) on a real two-node
Ray cluster (tests/ladder/ray_cluster.py, token authentication on), one of whose nodes
is killed while it plays: its stderr stays one JSON event a line, each naming a node,
the lost node is one event, and /metrics counts the nodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from niwa.ladder.demo import register_builtins
from niwa.ladder.store import Store
from tests.ladder.ray_cluster import Cluster
from tests.ladder.scraping import get, samples, value
from tests.ladder.serving import printed_address, wait_for

RAY_PATIENCE_S = 600.0  # a busy machine starts Ray's workers slowly

pytestmark = pytest.mark.skipif(
    not Path("/usr/bin/bwrap").exists(), reason="sandboxed bots need bubblewrap"
)


@dataclass
class Seen:
    nodes_before: float = 0.0
    after: dict[tuple[str, Any], float] = field(default_factory=dict)
    stderr: list[str] = field(default_factory=list)  # up to the lost node's event


def _events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines()


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seen]:
    root = tmp_path_factory.mktemp("ops-ray")
    cluster = Cluster(tmp_path_factory.mktemp("ray"))
    proc = None
    try:
        cluster.start()
        db = root / "ladder.db"
        store = Store.open(str(db), root)
        try:
            register_builtins(store)
        finally:
            store.close()
        log = root / "runner.log"
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "niwa", "ladder", "serve", "--db", str(db),
             "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--game", "blossom",
             "--executor", "ray", "--ray-address", cluster.address,
             "--log-format", "json", "--node", "runner-a"],
            stdout=subprocess.PIPE, stderr=log.open("a"), text=True,
            env={**inherited, **cluster.auth_env(), "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        printed_address(proc, r"serving on (\S+)", log)
        http = printed_address(proc, r"http on (\S+)", log)

        def on_node_b() -> bool:
            return sum(e.get("ran_on") == "node-b" for e in _events(log)) >= 2

        wait_for("two matches on node-b", on_node_b, RAY_PATIENCE_S)
        out = Seen(value(samples(get(f"{http}/metrics")[1]), "niwa_ray_nodes"))
        cluster.kill_node_b()

        def lost() -> bool:
            return any(e["event"] == "ray_node_lost" for e in _events(log))

        wait_for("ray_node_lost", lost, RAY_PATIENCE_S)
        out.after = samples(get(f"{http}/metrics")[1])
        out.stderr = _lines(log)
        yield out
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        cluster.stop()


def test_a_lost_ray_node_is_one_event_and_counted(seen: Seen) -> None:
    lost = [json.loads(line) for line in seen.stderr if '"ray_node_lost"' in line]
    assert len(lost) == 1 and lost[0]["node"] == "runner-a"
    assert value(seen.after, "niwa_ray_nodes_lost_total") == 1


def test_ray_nodes_gauge_counts_the_alive_nodes(seen: Seen) -> None:
    assert seen.nodes_before == 2
    assert value(seen.after, "niwa_ray_nodes") == 1


def test_every_stderr_line_of_a_ray_runner_is_a_json_event_naming_a_node(seen: Seen) -> None:
    events = [json.loads(line) for line in seen.stderr]
    assert all(e["node"] == "runner-a" for e in events)
    names = {e["event"] for e in events}
    assert {"ray_connected", "match_ran", "leftovers_cleaned"} <= names
