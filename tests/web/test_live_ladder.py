"""A ladder's running match on the web pages: a live link in the match list, the live
viewer on its page, and its stream read from the replay a worker is writing in the
store's data folder (or one event saying why there is none)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from niwa.ladder.store import Store
from niwa.web import live, live_ladder
from niwa.web.app import create_app
from niwa.web.server import open_read_only
from tests.web.ladders import played_store, running_match


@pytest.fixture
def running(tmp_path: Path) -> tuple[Path, int, Path]:
    """A store with a running match (tests.web.ladders.running_match); its replay to be
    written is a copy of a finished match's, at ``tmp_path / "source.jsonl"``."""
    return running_match(tmp_path)[:3]


@pytest.fixture
def client(running: tuple[Path, int, Path]) -> Iterator[TestClient]:
    store = open_read_only(str(running[0]))
    try:
        yield TestClient(create_app(store))
    finally:
        store.close()


def events(client: TestClient, match_id: int) -> list[tuple[str, dict[str, object]]]:
    with client.stream("GET", f"/matches/{match_id}/live") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        text = "".join(response.iter_text())
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            found.append((fields["event"], json.loads(fields["data"])))
    return found


def test_a_running_match_has_a_live_link_and_a_live_viewer(
    client: TestClient, running: tuple[Path, int, Path]
) -> None:
    match_id = running[1]
    listed = client.get("/matches").text
    assert f'<a class="live-link" href="/matches/{match_id}">live</a>' in listed
    page = client.get(f"/matches/{match_id}").text
    assert f'data-live="/matches/{match_id}/live"' in page
    assert "/static/live.js" in page and "seed 77" not in page


def test_the_stream_follows_the_replay_a_worker_writes_in_the_data_folder(
    client: TestClient, running: tuple[Path, int, Path], tmp_path: Path
) -> None:
    _, match_id, part = running
    part.write_bytes((tmp_path / "source.jsonl").read_bytes())
    got = events(client, match_id)
    assert got[0][0] == "start" and got[0][1]["seed"] == live.SEED_HIDDEN
    assert {kind for kind, _ in got[1:-1]} == {"frame"}
    assert got[-1][0] == "end"


def test_a_match_played_elsewhere_says_why_it_cannot_be_watched(
    client: TestClient, running: tuple[Path, int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_ladder, "FILE_WAIT_S", 0.0)
    got = events(client, running[1])
    assert got == [("unavailable", {
        "reason": f"live view not available for this match: {live_ladder.ELSEWHERE}"})]


def test_a_finished_match_s_stream_only_says_it_ended(client: TestClient) -> None:
    assert events(client, 1) == [("end", {"frames": 0})]


def test_the_stream_of_an_unknown_match_is_a_404(client: TestClient) -> None:
    assert client.get("/matches/999/live").status_code == 404


def test_a_match_of_an_unfinished_duplicate_round_is_not_shown_live(tmp_path: Path) -> None:
    db = played_store(tmp_path, matches=1)
    store = Store.open(str(db))
    try:
        done = store.matches.match(1)
        for seats in (done.seats, done.seats[::-1]):
            store.matches.queue_match(
                done.game, done.game_version, seats, seed=78, duplicate_group=9
            )
        claimed = store.matches.claim_next()
        assert claimed is not None
    finally:
        store.close()
    reader = open_read_only(str(db))
    try:
        got = events(TestClient(create_app(reader)), claimed.id)
    finally:
        reader.close()
    assert got == [("unavailable", {
        "reason": f"live view not available for this match: {live_ladder.ROUND}"})]


def test_the_ladder_s_live_delay_holds_frames_back_while_the_match_runs(
    running: tuple[Path, int, Path], tmp_path: Path
) -> None:
    db, match_id, part = running
    lines = (tmp_path / "source.jsonl").read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[:6]))  # the header and 5 steps: 6 frames made
    store = open_read_only(str(db))
    try:
        client = TestClient(create_app(store, live_delay=2))
        with client.stream("GET", f"/matches/{match_id}/live") as response:
            text = ""
            for chunk in response.iter_text():
                text += chunk
                if "event: frame" in text:
                    break
    finally:
        store.close()
    assert text.count("event: start") == 1 and text.count("event: frame") == 3
