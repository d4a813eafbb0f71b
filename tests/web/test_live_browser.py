"""Matches watched live in Chromium. ``niwa play --web`` between a sandboxed bot that
thinks a while on every decision and a built-in one: the page shows the running match's
frames as they come (the live viewer, before the match ends), then its full replay. A
ladder's running match (``niwa ladder web``): its page follows the replay a worker
writes, or says why it cannot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.referee import replay as replays
from niwa.web.live_ladder import ELSEWHERE
from tests.ladder.serving import printed_address, stop
from tests.ladder.tiny_bots import write_bot
from tests.polling import wait_for
from tests.web.browser import console_errors
from tests.web.ladders import running_match
from tests.web.served import start_ladder_web
from tests.web.test_browser_pages import shot

#: A bot that answers its first legal action after a pause: the match lasts a while.
THINKER = """
import time

from niwa.bots.sdk import Reply, serve


class Thinker:
    name = "thinker"
    version = "1.0.0"

    def start(self, game):
        pass

    def act(self, turn):
        time.sleep(0.3)
        return Reply(index=0)


if __name__ == "__main__":
    serve(Thinker())
"""


@pytest.fixture
def playing(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    """``niwa play blossom --web`` running; the process, the page's URL, the replay."""
    bot = write_bot(tmp_path, "thinker", "1.0.0", THINKER)
    replay = tmp_path / "match.jsonl"
    log = tmp_path / "play.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "play", "blossom", "--bot", str(bot), "--bot",
         "builtin:random", "--seed", "5", "--time", "10s+300s", "--quiet",
         "--replay", str(replay), "--web", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("blossom: 2 players, seed 5")
        url = printed_address(proc, r"^live: (http://\S+)", log)
        yield proc, url, replay
    finally:
        proc.send_signal(signal.SIGINT)  # it serves the replay until Ctrl-C
        proc.communicate(timeout=60)


def live_frames(browser: webdriver.Chrome) -> int:
    """How many frames the live viewer has (0 while it is not the live one)."""
    status = browser.find_elements(By.ID, "niwa-live-status")
    jump = browser.find_elements(By.CSS_SELECTOR, ".nv-jump")
    if not status or not jump or not status[0].text.startswith("live:"):
        return 0
    return int(jump[0].get_attribute("max") or 0) + 1


def test_a_live_match_s_frames_appear_before_it_ends_then_its_replay(
    browser: webdriver.Chrome, playing: tuple[subprocess.Popen[str], str, Path], tmp_path: Path
) -> None:
    proc, url, replay = playing
    browser.get(url)
    frames = wait_for("the live viewer with a few frames", lambda: live_frames(browser) >= 4)
    text = replay.read_bytes().decode()
    assert '"kind":"result"' not in text  # still running when seen
    shown = wait_for("more frames, the viewer following them",
                     lambda: int(browser.find_element(By.CSS_SELECTOR, ".nv-jump")
                                 .get_attribute("value") or 0) >= frames)  # fmt: skip
    assert shown
    assert browser.find_element(By.CSS_SELECTOR, ".nv-seat-select").get_attribute("disabled")
    shot(browser, tmp_path, "live-match")  # NIWA_WEB_SCREENSHOTS=docs/web: the one web.md shows
    # the match ends; the page loads again, now with the full replay
    wait_for("the full replay", lambda: browser.find_elements(By.ID, "niwa-payload"))
    steps = len(replays.read(replay).steps)
    assert browser.find_element(By.CSS_SELECTOR, ".nv-jump").get_attribute("max") == str(steps)
    assert proc.poll() is None  # still serving the replay, until Ctrl-C
    assert console_errors(browser) == []


def test_a_ladder_s_running_match_page_shows_its_frames_as_the_worker_writes_them(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db, match_id, part, source = running_match(tmp_path)
    lines = source.read_bytes().splitlines(keepends=True)
    proc, web = start_ladder_web(db)
    try:
        with part.open("wb", buffering=0) as f:  # as a worker's referee writes it
            f.write(b"".join(lines[:4]))
            browser.get(f"{web}/matches/{match_id}")
            wait_for("the live viewer with the first frames", lambda: live_frames(browser) >= 4)
            f.write(b"".join(lines[4:10]))
            wait_for("the frames written next", lambda: live_frames(browser) >= 10)
        assert not browser.find_elements(By.ID, "niwa-payload")  # the live viewer, no replay
        assert "seed hidden until the match ends" in browser.find_element(By.TAG_NAME, "h2").text
        assert console_errors(browser) == []
    finally:
        stop(proc)


def test_a_match_played_on_another_machine_says_why_it_is_not_live(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db, match_id, _, _ = running_match(tmp_path)
    proc, web = start_ladder_web(db)
    try:
        browser.get(f"{web}/matches/{match_id}")
        reason = (By.CSS_SELECTOR, ".nv-unavailable")
        shown = wait_for("the reason", lambda: browser.find_elements(*reason))
        assert shown[0].text == f"live view not available for this match: {ELSEWHERE}"
    finally:
        stop(proc)
