"""The demo's console: a progress line, the addresses and what goes wrong; the log
events in ``DATA/demo.log`` (``--verbose``: on stderr); with ``--serve --web`` the pages
answer while the demo's matches are still being played. ``serve --log-file`` splits its
log the same way. Real processes."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from niwa import engine
from niwa.ladder.demo import Progress
from niwa.ladder.store import Match
from tests.ladder.serving import printed_address, start_ladder, wait_for

DEMO = [sys.executable, "-m", "niwa", "ladder", "demo", "--workers", "1", "--seed", "1"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


@dataclass
class Run:
    data: Path
    out: str
    err: str


def _events(text: str) -> list[dict[str, Any]]:
    """The JSON log events among the lines of ``text``."""
    events = []
    for line in text.splitlines():
        if line.startswith("{"):
            events.append(json.loads(line))
    return events


def _demo(data: Path, *extra: str) -> Run:
    done = subprocess.run(
        [*DEMO, "--data", str(data), "--matches", "1", *extra],
        capture_output=True, text=True, env=ENV, check=True,
    )  # fmt: skip
    return Run(data, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _demo(tmp_path_factory.mktemp("quiet") / "niwa-data")


@pytest.fixture(scope="module")
def verbose(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _demo(tmp_path_factory.mktemp("verbose") / "niwa-data", "--verbose")


def test_the_demo_shows_a_progress_line_per_match_and_no_log_events(quiet: Run) -> None:
    games = quiet.out.count(" rated matches")
    lines = quiet.err.splitlines()
    assert games >= 1 and len(lines) == games  # a tenth of the way or more each
    assert all(line.startswith("played ") for line in lines), quiet.err
    assert lines[-1].startswith(f"played {games}/{games} matches in ")
    assert not _events(quiet.out) and not _events(quiet.err)


def test_the_demo_says_where_its_log_is(quiet: Run) -> None:
    assert f"log in {quiet.data / 'demo.log'}" in quiet.out.splitlines()[0]


def test_the_demo_log_file_holds_every_match_the_demo_recorded(quiet: Run) -> None:
    events = _events((quiet.data / "demo.log").read_text())
    played = [e for e in events if e["event"] == "match_played"]  # from the workers
    assert _recorded(quiet.data / "demo.log") == len(played) == quiet.out.count(" rated matches")


def test_verbose_puts_the_log_events_on_stderr_and_no_file(verbose: Run) -> None:
    recorded = [e for e in _events(verbose.err) if e["event"] == "match_recorded"]
    assert len(recorded) == verbose.out.count(" rated matches") >= 1
    assert not (verbose.data / "demo.log").exists()
    assert "log in" not in verbose.out


def _match(game: str) -> Match:
    return Match(
        id=1, game=game, game_version="1", kind="rated", seed=0, options={}, players=2,
        state="done", attempts=1, duplicate_group=None, created_at=0.0, started_at=0.0,
        finished_at=0.0, wall_s=0.0, decisions=0, error="", replay_sha256=None, seq=1,
        seats=(1, 2),
    )  # fmt: skip


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_progress_line_is_redrawn_in_place() -> None:
    screen = _Terminal()
    progress = Progress(4, screen)
    for game in ("blossom", "sakura", "blossom"):
        progress.update(_match(game))
    assert "\n" not in screen.getvalue() and screen.getvalue().count("\r") == 3
    assert screen.getvalue().rsplit("\r", 1)[1].endswith("3/4 matches in 0 s: blossom 2, sakura 1")
    progress.close()
    assert screen.getvalue().endswith("\n")


def test_off_a_terminal_progress_is_a_line_per_tenth_of_the_demo() -> None:
    out = io.StringIO()
    progress = Progress(100, out)
    for _ in range(100):
        progress.update(_match("bonsai"))
    assert len(out.getvalue().splitlines()) == 10


def test_serving_on_progress_says_once_that_the_demo_is_done_then_a_line_per_demo() -> None:
    out = io.StringIO()
    progress = Progress(10, out, when_done="the demo is done")
    for _ in range(25):
        progress.update(_match("miyabi"))
    lines = out.getvalue().splitlines()
    assert lines.count("the demo is done") == 1
    assert lines[-1].startswith("played 20 matches")


def _page(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read().decode())
    except (urllib.error.URLError, ConnectionError):
        return None


def _done(data: Path) -> int:
    with sqlite3.connect(f"file:{data / 'ladder.db'}?mode=ro", uri=True) as db:
        row = db.execute("SELECT COUNT(*) FROM matches WHERE state = 'done'").fetchone()
    return int(row[0])


def _serve(data: Path, err: Path, matches: int) -> tuple[subprocess.Popen[str], str]:
    """Start ``demo --serve --web`` on free ports; return it and its pages' address."""
    proc = subprocess.Popen(
        [*DEMO, "--data", str(data), "--matches", str(matches), "--serve",
         "--listen", "127.0.0.1:0", "--web", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=err.open("w"), text=True, env=ENV,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("niwa ladder demo: ")
    printed_address(proc, r"serving on (\S+)", err)
    return proc, printed_address(proc, r"web on (http://\S+)", err)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0


def test_the_demo_serves_its_pages_while_its_matches_are_still_played(tmp_path: Path) -> None:
    data = tmp_path / "niwa-data"
    proc, web = _serve(data, tmp_path / "err.txt", matches=10)  # 40 matches in all
    try:
        home = wait_for("the home page", lambda: _page(web + "/"))
        assert "blossom" in home
        assert _done(data) < 40  # the pages answered before the demo's matches were played
    finally:
        _stop(proc)


def test_the_demo_pages_list_its_matches_as_they_finish(tmp_path: Path) -> None:
    data = tmp_path / "niwa-data"
    proc, web = _serve(data, tmp_path / "err.txt", matches=10)
    try:
        listed = wait_for(
            "a finished match on the match list",
            lambda: re.findall(r'href="/matches/(\d+)"', _page(web + "/matches?state=done") or ""),
        )
        assert _done(data) >= len(set(listed)) >= 1
    finally:
        _stop(proc)


def test_serving_the_demo_shows_progress_and_the_addresses_but_no_log_events(
    tmp_path: Path,
) -> None:
    data, err = tmp_path / "niwa-data", tmp_path / "err.txt"
    proc, _ = _serve(data, err, matches=1)
    try:
        wait_for("the demo's matches", lambda: "matches are played" in err.read_text())
    finally:
        _stop(proc)
    total = len(engine.games())
    done_line = (
        f"the demo's {total} matches are played (leaderboards: the web pages, or niwa ladder "
        f"leaderboard --db {data / 'ladder.db'}); it keeps playing until Ctrl-C"
    )
    warnings = [e for e in _events(err.read_text()) if e["level"] in ("warning", "error")]
    lines = [line for line in err.read_text().splitlines() if not line.startswith("{")]
    progress = [line for line in lines if line.startswith("played ")]
    assert [line for line in lines if line not in progress] == [done_line, "stopped"], lines
    assert len(progress) <= _recorded(data / "demo.log") and len(progress) >= total
    assert len(lines) + len(warnings) == len(err.read_text().splitlines())


def _recorded(log: Path) -> int:
    return sum(e["event"] == "match_recorded" for e in _events(log.read_text()))


def test_serve_with_a_log_file_writes_its_events_there_and_only_warnings_on_stderr(
    tmp_path: Path,
) -> None:
    err, log = tmp_path / "err.txt", tmp_path / "serve.log"
    proc, _ = start_ladder(tmp_path / "ladder.db", err, "--log-file", str(log))
    try:
        # an empty ladder warns that no game can play: the warning stderr must carry (it
        # comes after runner_leading, and a busy machine let a stop come between them)
        wait_for("the runner's warning that no game can play", lambda: "game_waiting" in _text(log))
    finally:
        _stop(proc)
    on_stderr = _events(err.read_text())
    assert err.read_text().splitlines()[-1] == "stopped"
    assert len(on_stderr) == len(err.read_text().splitlines()) - 1
    assert on_stderr and {e["level"] for e in on_stderr} <= {"warning", "error"}
    in_file = _events(log.read_text())
    assert {"serving", "runner_leading", "game_waiting"} <= {e["event"] for e in in_file}


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""
