"""What an operator watches (docs/operations.md), on real servers: a `niwa ladder serve`
process with `--http` plays built-in bots, its /metrics is scraped and parsed with
prometheus_client's own parser, its stderr read back line by line; and a `niwa ladder
web` over the same store serves health and metrics beside its pages."""

from __future__ import annotations

import json
import signal
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from niwa.ladder import client
from niwa.ladder.demo import register_builtins
from niwa.ladder.store import Store
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.scraping import get, samples, value
from tests.ladder.serving import printed_address, start_ladder, wait_for
from tests.ladder.tiny_bots import SLEEPER, cli, owner_tokens, write_bot

MATCHES = 3


@dataclass
class Run:
    """What one served ladder showed: scrapes, answers, and its whole stderr."""

    before: dict[tuple[str, Any], float] = field(default_factory=dict)
    after: dict[tuple[str, Any], float] = field(default_factory=dict)
    list_calls: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # the store's, by class
    healthz: tuple[int, str] = (0, "")
    readyz: tuple[int, str] = (0, "")
    stderr: list[str] = field(default_factory=list)


def _stub_calls(address: str, run: Run) -> None:
    """A few calls whose counts the metrics must show: ListMatches, and RetireBot
    without a token (refused by admission control)."""
    channel, stub = client.connect(address)
    try:
        for _ in range(4):
            stub.ListMatches(pb.ListMatchesRequest(limit=5))
            run.list_calls += 1
        with pytest.raises(grpc.RpcError) as refused:
            stub.RetireBot(pb.RetireBotRequest(bot_id=1))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        channel.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """A ladder that first validates a bot that sleeps past its time (rejected), then
    plays MATCHES rated matches of the built-ins, registered only once it was judged."""
    root = tmp_path_factory.mktemp("operations")
    db = root / "ladder.db"
    tokens = owner_tokens(db, admins=(), owners=("alice",))
    log = root / "ladder.log"
    proc, address = start_ladder(
        db, log, "--game", "blossom", "--matches", str(MATCHES), "--time", "500ms+1s",
        "--http", "127.0.0.1:0", "--log-format", "json", "--node", "runner-a",
    )  # fmt: skip
    run = Run()
    try:
        http = printed_address(proc, r"http on (\S+)", log)
        run.before = samples(get(f"{http}/metrics")[1])
        sleeper = write_bot(root, "sleeper", "0.1.0", SLEEPER)
        code, verdict = cli(
            "ladder", "submit", str(sleeper), "--server", address, "--token", tokens["alice"]
        )
        assert code == 1 and "rejected" in verdict, verdict
        store = Store.open(str(db), root)
        try:
            register_builtins(store)
        finally:
            store.close()

        def finished() -> dict[tuple[str, Any], float] | None:
            scraped = samples(get(f"{http}/metrics")[1])
            done = value(scraped, "niwa_matches_finished_total", game="blossom", kind="rated")
            stopped = value(scraped, "niwa_runner_leader") == 0
            return scraped if done >= MATCHES and stopped else None

        wait_for(f"{MATCHES} rated matches recorded and the runner stopped", finished)
        _stub_calls(address, run)
        run.healthz = get(f"{http}/healthz")
        run.readyz = get(f"{http}/readyz")
        run.after = samples(get(f"{http}/metrics")[1])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    store = Store.open(str(db), root)
    try:
        rows = store.db.execute("SELECT reason FROM results WHERE status <> 'ok'")
        run.failures = Counter(str(r["reason"]) for r in rows)
    finally:
        store.close()
    run.stderr = log.read_text().splitlines()
    yield run


def test_metrics_count_each_recorded_match_once_by_game(served: Run) -> None:
    assert value(served.before, "niwa_matches_finished_total", game="blossom", kind="rated") == 0
    assert (
        value(served.after, "niwa_matches_finished_total", game="blossom", kind="rated") == MATCHES
    )
    finished = value(served.after, "niwa_matches_finished_total", game="blossom", kind="validation")
    assert finished == 1
    assert value(served.after, "niwa_match_duration_seconds_count", game="blossom") == MATCHES + 1


def test_metrics_count_failed_seats_by_failure_class(served: Run) -> None:
    assert served.failures["TIMEOUT"] >= 1  # the sleeper's, in its validation match
    counted = {
        dict(labels)["failure"]: v for (name, labels), v in served.after.items()
        if name == "niwa_seat_failures_total"
    }  # fmt: skip
    assert counted == dict(served.failures)


def test_metrics_count_api_calls_by_method(served: Run) -> None:
    calls = value(served.after, "niwa_api_call_seconds_count", method="ListMatches")
    assert calls == served.list_calls


def test_metrics_count_admission_refusals_by_reason(served: Run) -> None:
    assert value(served.after, "niwa_admission_refusals_total", reason="no_token") == 1


def test_a_runner_that_stopped_playing_no_longer_counts_as_leader(served: Run) -> None:
    assert value(served.after, "niwa_runner_leader") == 0
    assert value(served.after, "niwa_queue_depth") == 0
    assert json.loads(served.readyz[1]) == {
        "status": "ready", "database": "ok", "runner": "stopped"
    }  # fmt: skip


def test_healthz_answers_while_the_process_runs(served: Run) -> None:
    assert served.healthz == (200, '{"status":"alive"}')


def test_every_stderr_line_of_a_json_server_is_an_event_naming_its_node(served: Run) -> None:
    events = [json.loads(line) for line in served.stderr]
    assert events and all(e["node"] == "runner-a" for e in events)
    names = {e["event"] for e in events}
    assert {"serving", "leftovers_cleaned", "match_recorded", "stopped"} <= names
