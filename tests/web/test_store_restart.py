"""Readers of a store on their own node. The web front reads every replay from the
store alone, and outlives a restart of the store's PostgreSQL server (503 naming the
cause while the server is down, one log event per failed request, pages again once it
is back); so do the API's reads (``niwa ladder serve``)."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from niwa.ladder import server
from niwa.ladder.client import CallFailed, LadderClient
from niwa.ladder.db import UNAVAILABLE, ConnectionLost, Database
from niwa.ladder.store import DONE, Store
from niwa.web.app import create_app
from niwa.web.server import open_read_only
from tests import postgres
from tests.captured_logs import every_event
from tests.polling import PATIENCE_S
from tests.postgres import Server
from tests.web.ladders import play_builtins
from tests.web.served import get, start_web_front


@pytest.fixture(scope="module")
def restartable() -> Iterator[Server]:
    """A PostgreSQL server of this module's own: its tests stop and start it."""
    with postgres.running() as server:
        yield server


@pytest.fixture(scope="module")
def played(restartable: Server, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store on ``restartable`` where a runner with a folder of its own played."""
    url = restartable.database()
    play_builtins(url, tmp_path_factory.mktemp("runner-node"), matches=3)
    return url


def finished(url: str, folder: Path) -> dict[int, str]:
    """Each finished match's id and recorded replay SHA-256."""
    store = Store.open(url, folder)
    try:
        return {m.id: str(m.replay_sha256) for m in store.matches.matches(state=DONE, limit=100)}
    finally:
        store.close()


def test_every_match_page_viewer_payload_and_download_come_from_the_store_alone(
    played: str, tmp_path: Path
) -> None:
    recorded = finished(played, tmp_path / "reader")
    assert len(recorded) >= 3
    web_folder = tmp_path / "web-node"
    web_folder.mkdir()
    store = open_read_only(played, web_folder)  # a folder of its own, empty
    try:
        with TestClient(create_app(store)) as client:
            for match_id, sha256 in recorded.items():
                page = client.get(f"/matches/{match_id}")
                assert page.status_code == 200, page.text
                assert 'id="niwa-payload"' in page.text  # the viewer's data, on the page
                download = client.get(f"/matches/{match_id}/replay.jsonl")
                assert download.status_code == 200, download.text
                assert hashlib.sha256(download.content).hexdigest() == sha256
    finally:
        store.close()
    assert list(web_folder.iterdir()) == []  # nothing was written or needed there


@pytest.fixture
def web_front(played: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``niwa ladder web`` over the played store, a real process; its address and log."""
    folder, log = tmp_path / "web-node", tmp_path / "web.log"
    folder.mkdir()
    proc, address = start_web_front(played, folder, log)
    try:
        yield address, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=PATIENCE_S)
        if proc.stdout is not None:
            proc.stdout.close()


def events(log: Path, name: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [e for e in lines if e.get("event") == name]


def test_while_the_database_is_down_pages_are_503_naming_the_cause(
    restartable: Server, web_front: tuple[str, Path]
) -> None:
    address, _ = web_front
    with postgres.down(restartable):
        status, body, headers = get(f"{address}/matches")
        json_status, json_body, _ = get(f"{address}/games/blossom", "application/json")
    assert status == 503 and UNAVAILABLE in html.unescape(body) and headers["retry-after"]
    assert json_status == 503 and json.loads(json_body) == {"error": UNAVAILABLE}


def test_each_request_failed_by_the_database_is_one_log_event_not_a_traceback(
    restartable: Server, web_front: tuple[str, Path]
) -> None:
    address, log = web_front
    with postgres.down(restartable):
        statuses = [get(f"{address}{path}")[0] for path in ("/", "/matches", "/matches/1")]
    assert statuses == [503, 503, 503]
    logged = events(log, "store_unavailable")
    assert [e["path"] for e in logged] == ["/", "/matches", "/matches/1"]
    assert "Traceback" not in log.read_text()


def test_the_first_request_after_the_database_is_back_succeeds(
    restartable: Server, web_front: tuple[str, Path]
) -> None:
    address, _ = web_front
    assert get(f"{address}/matches")[0] == 200
    with postgres.down(restartable):
        assert get(f"{address}/matches")[0] == 503
    status, body, _ = get(f"{address}/matches/1")
    assert status == 200, body


def test_a_restart_between_two_requests_goes_unnoticed(
    restartable: Server, web_front: tuple[str, Path]
) -> None:
    address, log = web_front
    assert get(f"{address}/games/blossom")[0] == 200
    with postgres.down(restartable):  # the web front's connection ends, unknown to it
        pass
    status, body, _ = get(f"{address}/games/blossom")
    assert status == 200, body
    assert events(log, "store_unavailable") == []
    assert re.search(r"random@1", body)


@pytest.fixture
def api(played: str, tmp_path: Path) -> Iterator[str]:
    """The ladder's API over the played store, with a folder of its own; its address."""
    grpc_server, port = server.start(played, tmp_path / "api-node", "127.0.0.1:0")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        grpc_server.stop(None).wait()


def test_the_api_answers_unavailable_while_the_database_is_down_and_reads_after(
    restartable: Server, api: str
) -> None:
    with LadderClient(api) as ladder, every_event() as logged:
        assert ladder.list_bots().bots
        with postgres.down(restartable), pytest.raises(CallFailed) as down:
            ladder.list_bots()
        assert down.value.unavailable and UNAVAILABLE in down.value.details
        assert ladder.list_bots().bots  # the first call after the restart
    assert [e["event"] for e in logged if e["log_level"] == "error"] == ["store_unavailable"]


def test_a_call_with_a_token_while_the_database_is_down_is_unavailable_too(
    played: str, restartable: Server, api: str, tmp_path: Path
) -> None:
    store = Store.open(played, tmp_path)
    try:
        _, token = store.owners.add_owner("bob")
    finally:
        store.close()
    with LadderClient(api, token=token) as ladder:
        with postgres.down(restartable), pytest.raises(CallFailed) as down:
            ladder.list_bots()
        assert down.value.unavailable and UNAVAILABLE in down.value.details
        assert ladder.list_bots().bots


def test_an_api_read_after_a_restart_between_two_calls_succeeds(
    restartable: Server, api: str
) -> None:
    with LadderClient(api) as ladder:
        before = ladder.list_bots()  # not cached, unlike the leaderboards
        with postgres.down(restartable):  # the API's connections end, unknown to it
            pass
        assert ladder.list_bots() == before


def test_a_replay_folder_this_node_cannot_read_is_no_obstacle(played: str, tmp_path: Path) -> None:
    web_folder = tmp_path / "web-node"
    web_folder.mkdir()
    (web_folder / "replays").write_text("not a folder")  # reading in it: NotADirectoryError
    store = open_read_only(played, web_folder)
    try:
        with TestClient(create_app(store)) as client:
            assert client.get("/matches/1").status_code == 200
            assert client.get("/matches/1/replay.jsonl").status_code == 200
    finally:
        store.close()


def test_a_transaction_cut_by_a_restart_is_not_committed_on_a_new_connection(
    restartable: Server,
) -> None:
    url = restartable.database()
    db = Database.open(url, reconnect=True)
    try:
        db.execute("CREATE TABLE kept (n INTEGER)")
        with pytest.raises(ConnectionLost), db.transaction():
            db.execute("INSERT INTO kept (n) VALUES (1)")
            with postgres.down(restartable):  # then COMMIT: not on a new connection
                pass
        assert db.execute("SELECT n FROM kept") == []  # and the store reconnected
    finally:
        db.close()


def test_a_live_stream_ends_with_one_log_event_when_the_database_goes(
    restartable: Server, web_front: tuple[str, Path]
) -> None:
    address, log = web_front
    with urllib.request.urlopen(f"{address}/matches/events", timeout=PATIENCE_S) as stream:
        assert stream.readline().startswith(b"retry:")
        with postgres.down(restartable):
            stream.read()  # returns once the server ends the stream
    assert len(events(log, "stream_store_unavailable")) == 1
    assert "Traceback" not in log.read_text()
