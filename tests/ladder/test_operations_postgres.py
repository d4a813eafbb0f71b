"""Health that follows the database, on a real PostgreSQL server of this module's own
(stopped as a crash would, then started again): a leader and a standby `niwa ladder
serve` with `--http`, and a `niwa ladder web`, all real processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests import postgres
from tests.ladder.scraping import get, samples, value
from tests.ladder.serving import printed_address, start_ladder, wait_for
from tests.postgres import Server

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@dataclass
class Seen:
    """Answers before, while and after the database was down."""

    leader_ready: dict[str, str] = field(default_factory=dict)
    standby_ready: dict[str, str] = field(default_factory=dict)
    standby_leader_gauge: float = -1.0
    down: dict[str, tuple[int, dict[str, str]]] = field(default_factory=dict)
    back: dict[str, tuple[int, dict[str, str]]] = field(default_factory=dict)
    health_down: int = -1
    health_back: int = -1
    web_healthz_down: int = 0
    web_metrics: dict[tuple[str, Any], float] = field(default_factory=dict)  # once back
    stderr: dict[str, list[str]] = field(default_factory=dict)  # each process's, whole


def _serve(db_url: str, root: Path, node: str) -> tuple[subprocess.Popen[str], str, str]:
    data = root / node
    log = root / f"{node}.log"
    proc, address = start_ladder(
        db_url, log, "--data", str(data), "--workers", "1", "--lease", "5",
        "--http", "127.0.0.1:0", "--node", node, "--log-format", "json",
    )  # fmt: skip
    return proc, address, printed_address(proc, r"http on (\S+)", log)


def _web(db_url: str, root: Path) -> tuple[subprocess.Popen[str], str]:
    log = root / "web.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", db_url, "--data",
         str(root / "web"), "--listen", "127.0.0.1:0", "--log-format", "json"],
        stdout=subprocess.PIPE, stderr=log.open("a"), text=True,
    )  # fmt: skip
    return proc, printed_address(proc, r"web on (\S+)", log)


def _ready(url: str) -> tuple[int, dict[str, str]]:
    status, body = get(f"{url}/readyz")
    return status, json.loads(body)


def _health(stub: health_pb2_grpc.HealthStub) -> int:
    return int(stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=60).status)


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seen]:
    bin_dir = postgres.binaries()
    if bin_dir is None:
        pytest.skip(postgres.MISSING)
    root = tmp_path_factory.mktemp("ops-pg")
    server = Server(bin_dir, durable=True)  # its own: this module stops it
    procs: list[subprocess.Popen[str]] = []
    channel = None
    try:
        db_url = server.database()
        leader, address, leader_http = _serve(db_url, root, "runner-a")
        procs.append(leader)
        wait_for("runner-a leading", lambda: _ready(leader_http)[1].get("runner") == "leading")
        standby, _, standby_http = _serve(db_url, root, "runner-b")
        procs.append(standby)
        wait_for(
            "runner-b standing by",
            lambda: _ready(standby_http)[1].get("runner") == "standing_by",
        )
        web, web_url = _web(db_url, root)
        procs.append(web)
        urls = {"leader": leader_http, "standby": standby_http, "web": web_url}
        out = Seen(_ready(leader_http)[1], _ready(standby_http)[1])
        out.standby_leader_gauge = value(
            samples(get(f"{standby_http}/metrics")[1]), "niwa_runner_leader"
        )
        channel = grpc.insecure_channel(address)
        stub = health_pb2_grpc.HealthStub(channel)
        wait_for("gRPC health SERVING", lambda: _health(stub) == SERVING)

        server.halt()
        wait_for("every /readyz at 503", lambda: all(
            _ready(url)[0] == 503 for url in urls.values()
        ))  # fmt: skip
        out.down = {name: _ready(url) for name, url in urls.items()}
        out.web_healthz_down = get(f"{web_url}/healthz")[0]
        out.health_down = wait_for("gRPC health NOT_SERVING", lambda: (
            NOT_SERVING if _health(stub) == NOT_SERVING else None
        ))  # fmt: skip

        server.start()
        wait_for("every /readyz at 200", lambda: all(
            _ready(url)[0] == 200 for url in urls.values()
        ))  # fmt: skip
        out.back = {name: _ready(url) for name, url in urls.items()}
        out.web_metrics = samples(get(f"{web_url}/metrics")[1])
        out.health_back = wait_for("gRPC health SERVING again", lambda: (
            SERVING if _health(stub) == SERVING else None
        ))  # fmt: skip
        _stop(procs)
        out.stderr = {log.stem: log.read_text().splitlines() for log in root.glob("*.log")}
        yield out
    finally:
        if channel is not None:
            channel.close()
        _stop(procs)
        server.stop()


def _stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_readyz_of_a_runner_says_whether_it_leads_or_stands_by(seen: Seen) -> None:
    assert seen.leader_ready == {"status": "ready", "database": "ok", "runner": "leading"}
    assert seen.standby_ready == {"status": "ready", "database": "ok", "runner": "standing_by"}


def test_the_leader_gauge_is_0_on_a_standby(seen: Seen) -> None:
    assert seen.standby_leader_gauge == 0


def test_readyz_is_503_naming_the_cause_while_postgresql_is_stopped(seen: Seen) -> None:
    for name, (status, body) in seen.down.items():
        assert status == 503, name
        assert body["status"] == "not ready", body
        assert body["database"].startswith("the store cannot be reached"), body
        assert "postgres" not in body["database"], body  # no user, host or database name


def test_readyz_is_200_again_once_postgresql_is_back(seen: Seen) -> None:
    assert {name: answer[0] for name, answer in seen.back.items()} == {
        "leader": 200, "standby": 200, "web": 200
    }  # fmt: skip


def test_healthz_stays_200_while_postgresql_is_stopped(seen: Seen) -> None:
    assert seen.web_healthz_down == 200


def test_grpc_health_is_not_serving_while_postgresql_is_stopped(seen: Seen) -> None:
    assert seen.health_down == NOT_SERVING


def test_grpc_health_is_serving_again_once_postgresql_is_back(seen: Seen) -> None:
    assert seen.health_back == SERVING


def test_every_stderr_line_of_each_server_is_a_json_event_naming_its_node(seen: Seen) -> None:
    assert set(seen.stderr) == {"runner-a", "runner-b", "web"}
    for name, lines in seen.stderr.items():
        events = [json.loads(line) for line in lines]
        assert events and all(e["node"] for e in events), name
    runner = {json.loads(line)["node"] for line in seen.stderr["runner-a"]}
    assert runner == {"runner-a"}


def test_the_web_front_logs_one_event_when_the_store_stops_and_one_when_it_is_back(
    seen: Seen,
) -> None:
    events = [json.loads(line)["event"] for line in seen.stderr["web"]]
    assert events.count("store_not_ready") == 1 and events.count("store_ready") == 1


def test_the_web_fronts_metrics_show_the_store_back_and_its_probes_timed(seen: Seen) -> None:
    assert value(seen.web_metrics, "niwa_database_up") == 1
    assert value(seen.web_metrics, "niwa_web_request_seconds_count", route="/readyz") >= 3
