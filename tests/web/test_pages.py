"""The web pages over a real store (built-in bots played real matches), through HTTP."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from starlette.testclient import TestClient

from niwa.ladder.db import DatabaseError
from niwa.ladder.reads import Reads
from niwa.ladder.store import Store
from niwa.web.app import create_app
from niwa.web.security import CSP
from niwa.web.server import open_read_only
from tests.ladder.test_replay_integrity import REPLAY, finished_match_at
from tests.postgres import Server
from tests.web.ladders import played_store

XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_store(tmp_path_factory.mktemp("ladder"))


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    store = open_read_only(str(db))
    try:
        with TestClient(create_app(store)) as client:
            yield client
    finally:
        store.close()


def test_the_leaderboard_shows_every_active_bot_with_its_mean_place(client: TestClient) -> None:
    page = client.get("/games/blossom")
    assert page.status_code == 200
    assert "random@1" in page.text and "greedy@1" in page.text
    places = re.findall(r'<td class="num">(\d\.\d\d)</td>', page.text)
    assert len(places) == 2 and all(1.0 <= float(p) <= 2.0 for p in places)


def test_the_leaderboard_draws_its_plots_as_inline_svg(client: TestClient) -> None:
    page = client.get("/games/blossom").text
    assert page.count("<svg") == 2
    assert page.count('class="line"') == 2  # a rating line per bot
    assert page.count('class="interval"') == 2


def test_every_page_carries_the_content_security_policy(client: TestClient) -> None:
    for path in ("/", "/games/blossom", "/matches", "/matches/1", "/bots/1", "/static/site.css"):
        assert client.get(path).headers["content-security-policy"] == CSP, path


def test_a_server_error_carries_the_security_headers_too(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "ladder.db"))
    app = create_app(store)
    store.close()  # every read now fails: a 500 from Starlette's own error middleware
    with TestClient(app, raise_server_exceptions=False) as broken:
        page = broken.get("/")
    assert page.status_code == 500
    assert page.headers["content-security-policy"] == CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"


def test_a_leaderboard_page_past_the_last_is_a_404(client: TestClient) -> None:
    page = client.get("/games/blossom?page=2")
    assert page.status_code == 404
    assert "page 2: the blossom leaderboard has 1" in page.text


def test_an_unknown_game_is_a_404_with_one_line(client: TestClient) -> None:
    page = client.get("/games/chess")
    assert page.status_code == 404
    assert "no game &#39;chess&#39; on this ladder" in page.text


@pytest.mark.parametrize(
    ("path", "cause"),
    [
        ("/matches?limit=0", "limit must be a whole number from 1 to 100"),
        ("/matches?limit=x", "limit must be a whole number from 1 to 100"),
        ("/matches?state=won", "state &#39;won&#39;: one of queued, running, done, failed"),
        ("/games/blossom?page=-1", "page must be a whole number from 1 to 10000"),
        ("/matches?bot=" + "b" * 65, "bot is 65 characters long: at most 64"),
        ("/matches?limit=%C2%B2", "limit must be a whole number from 1 to 100 in ASCII digits"),
        ("/matches?game=a%00b", "game contains a NUL character"),
    ],
)
def test_a_bad_query_parameter_is_a_400_naming_it(
    client: TestClient, path: str, cause: str
) -> None:
    page = client.get(path)
    assert page.status_code == 400
    assert cause in page.text


def test_the_match_list_pages_by_older_ids(client: TestClient) -> None:
    first = client.get("/matches?limit=1").text
    newest = re.findall(r'<a href="/matches/(\d+)">', first)
    older = re.search(r'before=(\d+)"', first)
    assert len(newest) == 1 and older is not None and older.group(1) == newest[0]
    second = client.get(f"/matches?limit=1&before={older.group(1)}").text
    assert re.findall(r'<a href="/matches/(\d+)">', second) == [str(int(newest[0]) - 1)]


def test_the_match_list_filters_by_bot(client: TestClient) -> None:
    page = client.get("/matches?bot=random&state=done&limit=100").text
    rows = page.count('<tr><td><a href="/matches/')
    assert rows >= 4 and page.count("random@1") >= rows


def test_the_server_refuses_writes(client: TestClient) -> None:
    assert client.post("/matches").status_code == 405
    assert client.delete("/bots/1").status_code == 405


def test_the_bot_page_shows_its_record_against_each_opponent(client: TestClient) -> None:
    page = client.get("/bots/1").text
    head_to_head = page.split("<h2>Head to head</h2>")[1].split("<h2>")[0]
    assert "greedy@1" in head_to_head or "random@1" in head_to_head
    assert "active" in page


def test_the_match_page_embeds_the_viewer_and_its_payload(client: TestClient) -> None:
    page = client.get("/matches/1").text
    assert '<script type="module" src="/static/boot.js"></script>' in page
    assert '<script type="application/json" id="niwa-payload">' in page


def test_the_replay_file_is_served_as_recorded(client: TestClient, db: Path) -> None:
    served = client.get("/matches/1/replay.jsonl")
    assert served.status_code == 200
    assert served.content == (db.parent / "replays" / "1.jsonl").read_bytes()


def test_bot_written_text_is_escaped_on_every_page(tmp_path: Path) -> None:
    data = tmp_path / "ladder"
    data.mkdir()
    db = played_store(data, matches=1)
    conn = sqlite3.connect(db)  # as an older ladder, or a hand edit, might have left it
    conn.execute("UPDATE bots SET name = ?, reason = ? WHERE id = 1", (XSS, XSS))
    conn.execute("UPDATE results SET status = 'out', reason = 'CRASHED', detail = ?", (XSS,))
    conn.commit()
    conn.close()
    store = open_read_only(str(db))
    try:
        with TestClient(create_app(store)) as client:
            for path in ("/", "/games/blossom", "/bots/1", "/matches", "/matches/1"):
                page = client.get(path)
                assert page.status_code == 200, path
                assert XSS not in page.text, path
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get("/bots/1").text
    finally:
        store.close()


def test_the_read_only_store_refuses_a_write(db: Path) -> None:
    store = open_read_only(str(db))
    try:
        with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only"):
            store.db.execute("DELETE FROM matches")
    finally:
        store.close()


def test_a_store_of_another_schema_is_refused_with_one_line(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO schema_version VALUES (2)")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match="schema version 2, this niwa reads"):
        open_read_only(str(tmp_path / "old.db"))


def test_opening_read_only_leaves_a_missing_store_missing(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="no ladder store"):
        open_read_only(str(tmp_path / "none.db"))
    assert not (tmp_path / "none.db").exists()


def test_the_writer_still_commits_while_the_pages_read(db: Path, client: TestClient) -> None:
    client.get("/games/blossom")
    store = Store.open(str(db))
    try:
        store.settings.set_setting("web-test", "1")
        assert store.settings.setting("web-test") == "1"
    finally:
        store.close()


def test_a_replay_changed_on_disk_is_refused_not_shown(tmp_path: Path) -> None:
    db = played_store(tmp_path, matches=1)
    replay = tmp_path / "replays" / "1.jsonl"
    replay.write_bytes(replay.read_bytes().replace(b'"seed"', b'"seed" ', 1))
    store = open_read_only(str(db))
    try:
        with TestClient(create_app(store)) as client:
            page = client.get("/matches/1")
            assert page.status_code == 500
            assert "no longer matches its recorded SHA-256" in page.text
            assert client.get("/matches/1/replay.jsonl").status_code == 500
    finally:
        store.close()


def test_a_web_node_on_postgresql_serves_replays_from_the_store_and_cannot_write(
    postgres_server: Server, tmp_path: Path
) -> None:
    url = postgres_server.database()
    match_id = finished_match_at(url, tmp_path / "runner-node")
    store = open_read_only(url, tmp_path / "web-node")  # a folder of its own, empty
    try:
        with TestClient(create_app(store)) as client:
            served = client.get(f"/matches/{match_id}/replay.jsonl")
            assert served.status_code == 200 and served.content == REPLAY
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            store.db.execute("DELETE FROM matches")
    finally:
        store.close()


def test_the_bot_page_labels_its_leaderboard_elo_and_its_running_elo(
    client: TestClient, db: Path
) -> None:
    page = client.get("/bots/1").text
    fit = re.search(r'id="elo-fit">(-?\d+) ± (\d+), rank (\d+)', page)
    running = re.search(r'id="elo-running">(-?\d+):', page)
    ending = re.search(r"ending at (-?\d+)\.", page)
    assert fit and running and ending, page
    store = open_read_only(str(db))
    try:
        (board,) = Reads(store).leaderboards("blossom")
        row = next(r for r in board.rows if r.bot.id == 1)
        history = Reads(store).bot_history(1)
        stored = store.bots.bot(1).elo
    finally:
        store.close()
    # the leaderboard's number is the fit, the same on both pages
    assert fit.groups() == (f"{row.elo:.0f}", f"{row.ci95:.0f}", str(row.rank))
    leaderboard = client.get("/games/blossom").text.split('href="/bots/1"')[1]
    assert f'<td class="num">{fit.group(1)}</td>' in leaderboard.split("</tr>")[0]
    # the running Elo is the stored per-match rating, where the plotted line ends
    assert running.group(1) == ending.group(1) == f"{stored:.0f}" == f"{history[-1].elo:.0f}"


def test_a_games_renderer_is_served_from_its_package_as_javascript(client: TestClient) -> None:
    reply = client.get("/static/games/blossom.js")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/javascript")
    assert "export function draw" in reply.text


def test_an_unregistered_games_renderer_is_a_404_naming_it(client: TestClient) -> None:
    reply = client.get("/static/games/chess.js")
    assert reply.status_code == 404 and "chess" in reply.text
