"""A person at the table, in Chromium: ``niwa play GAME --human --bot builtin:random``
(the bot a sandboxed process, niwa play's default), a scripted person clicking the
board on the page niwa prints, and the replay verified afterwards. Also: a closed tab
puts the seat out (DISCONNECTED) after the grace period.

Each game's page is photographed at the person's fifth turn; with
NIWA_WEB_SCREENSHOTS=DIR the picture is also copied to DIR/<game>-human.png (docs/web/
holds the ones docs/web.md shows)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from niwa.referee.failures import Failure, SeatStatus
from niwa.referee.replay import read
from niwa.referee.replay.check import verify
from tests.polling import PATIENCE_S, wait_for
from tests.web.browser import console_errors, keep_screenshot
from tests.web.matches import GAMES

URL = re.compile(r"in your browser: (http://\S+)")
#: The person's turn the page is photographed at.
SHOT_TURN = 5


@dataclass
class Played:
    """What the scripted person did: moves by a board click, and the words of the
    moves taken from the list because no board part offered any move."""

    clicks: int = 0
    listed: list[str] = field(default_factory=list)


@pytest.fixture
def niwa_play(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Started ``niwa play`` processes, stopped at the end of the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        _, err = process.communicate()
        print(err[-4000:])  # shown with a failure: what niwa play said


def start(started: list[subprocess.Popen[str]], tmp_path: Path, game: str, seed: int,
          *extra: str) -> tuple[subprocess.Popen[str], str]:  # fmt: skip
    """``niwa play`` with a person at seat 0; the process and the page's URL."""
    args = [
        sys.executable, "-m", "niwa", "play", game, "--human", "--bot", "builtin:random",
        "--seed", str(seed), "--quiet", "--replay", str(tmp_path / "human.jsonl"),
        "--human-name", "tester", *extra,
    ]  # fmt: skip
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started.append(process)
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        found = URL.search(line)
        if found:
            return process, found.group(1)
    raise AssertionError(f"niwa play printed no URL: {lines} {process.stderr.read()}")  # type: ignore[union-attr]


def state(browser: webdriver.Chrome) -> tuple[str, str]:
    root = browser.find_element(By.ID, "niwa-human")
    return root.get_attribute("data-state") or "", root.get_attribute("data-decision") or ""


def wait_turn(browser: webdriver.Chrome, after: str) -> str:
    """Wait until the page asks a new question or the match is over; its state."""

    def turn(_: object) -> str | None:
        now, decision = state(browser)
        if now == "over" or (now == "asked" and decision != after):
            return now
        return None

    try:
        result: str = WebDriverWait(browser, PATIENCE_S).until(turn)
    except TimeoutException:
        said = [browser.find_element(By.ID, i).text for i in ("human-status", "human-error")]
        root = browser.find_element(By.ID, "niwa-human")
        said += [f"{a} {root.get_attribute(a)}" for a in ("data-sent", "data-version")]
        raise AssertionError(
            f"the page asked nothing new after step {after}: {said} {console_errors(browser)}"
        ) from None
    return result


def click_a_move(browser: webdriver.Chrome, rng: random.Random, played: Played) -> None:
    """Click a board part some legal move uses (and the first move of the chooser if it
    offers several); the move list only when the board offers nothing."""
    targets = browser.find_elements(By.CSS_SELECTOR, "#human-board .hu-target")
    if not targets:
        buttons = browser.find_elements(By.CSS_SELECTOR, "#human-moves button")
        pick = rng.choice(buttons)
        played.listed.append(pick.text)
        pick.click()
        return
    target: WebElement = rng.choice(targets)
    target.click()
    played.clicks += 1
    chooser = browser.find_element(By.ID, "human-chooser")
    if chooser.is_displayed():
        rng.choice(chooser.find_elements(By.CSS_SELECTOR, "button[data-index]")).click()


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_match_by_clicking_the_board(
    browser: webdriver.Chrome, niwa_play: list[subprocess.Popen[str]], tmp_path: Path,
    game: str,
) -> None:  # fmt: skip
    process, url = start(niwa_play, tmp_path, game, 7)
    browser.get(url)
    rng = random.Random(game)
    played = Played()
    decision = ""
    turns = 0
    while wait_turn(browser, decision) == "asked":
        decision = state(browser)[1]
        turns += 1
        if turns == SHOT_TURN:
            keep_screenshot(browser.get_screenshot_as_png(), tmp_path / f"{game}-human.png")
        click_a_move(browser, rng, played)
    assert turns >= SHOT_TURN
    assert process.wait(timeout=PATIENCE_S) == 0
    assert "you placed" in browser.find_element(By.ID, "human-result").text
    replay = read(tmp_path / "human.jsonl")
    assert verify(replay) == len(replay.steps)
    assert [s.isolation for s in replay.header.seats] == ["human", "sandbox"]
    assert replay.result is not None
    assert [s.status for s in replay.result.seats] == [SeatStatus.OK, SeatStatus.OK]
    assert played.clicks > len(played.listed), played.listed
    assert console_errors(browser) == []


def test_a_closed_tab_is_disconnected_after_the_grace_period(
    browser: webdriver.Chrome, niwa_play: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    process, url = start(niwa_play, tmp_path, "sakura", 3, "--human-grace", "0.5")
    browser.get(url)
    wait_turn(browser, "")
    browser.get("about:blank")  # the tab's page is gone: its event stream closes
    process.wait(timeout=PATIENCE_S)
    replay = wait_for("the replay's result", lambda: read(tmp_path / "human.jsonl"))
    assert replay.result is not None
    out = replay.result.seats[0]
    assert (out.status, out.reason) == (SeatStatus.OUT, str(Failure.DISCONNECTED))
    assert "no page open" in out.detail
