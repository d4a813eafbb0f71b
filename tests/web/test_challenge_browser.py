"""A signed-in owner challenges a ladder bot and plays it in Chromium: a real ``niwa
ladder serve --web`` (its sparring partner builtin:random is the active bot), signing
in with the owner's token from the bot page's link, the challenge button, a whole
Blossom match played by clicking the board, then the match in the match list as
unrated and its downloaded replay verified by ``niwa replay verify``. The bot page with
its challenge offer is photographed (NIWA_WEB_SCREENSHOTS=docs/web keeps it for
docs/web.md)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from niwa.ladder.store import ACTIVE, CHALLENGE, DONE, Store
from tests.ladder.serving import stop
from tests.polling import PATIENCE_S, wait_for
from tests.web.browser import console_errors, keep_screenshot
from tests.web.served import page, start_web_ladder
from tests.web.test_human_browser import Played, click_a_move, state, wait_turn

GAME = "blossom"


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """A served ladder whose one active Blossom bot is builtin:random, and an owner's
    token: (the pages' address, the token, the store's file)."""
    db = tmp_path / "ladder.db"
    store = Store.open(str(db), tmp_path)
    try:
        token = store.owners.add_owner("ada")[1]
    finally:
        store.close()
    log = tmp_path / "ladder.log"
    proc, _, web = start_web_ladder(
        db, log, "--game", GAME, "--sparring", "builtin:random", "--time", "2s+30s"
    )
    try:
        yield web, token, db
    finally:
        stop(proc)
        print(log.read_text()[-4000:])  # shown with a failure: what the ladder said


def the_bot(db: Path) -> int:
    store = Store.open(str(db), db.parent)
    try:
        return next(b.id for b in store.bots.bots(GAME, [ACTIVE]) if b.name == "random")
    finally:
        store.close()


def sign_in_from(browser: webdriver.Chrome, web: str, bot: int, token: str) -> None:
    """Open the bot's page anonymously, follow its sign-in link, sign in: back on the
    bot's page."""
    browser.delete_all_cookies()
    browser.get(f"{web}/bots/{bot}")
    browser.find_element(By.ID, "challenge-signin").click()
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.ID, "signin-submit").click()
    WebDriverWait(browser, PATIENCE_S).until(
        lambda b: b.current_url.endswith(f"/bots/{bot}")
        and b.find_elements(By.ID, "challenge-button")
    )


def test_an_owner_challenges_a_bot_and_plays_it_in_the_browser_unrated(
    browser: webdriver.Chrome, ladder: tuple[str, str, Path], tmp_path: Path
) -> None:
    web, token, db = ladder
    bot = wait_for("the sparring partner to be active", lambda: _active(db))
    sign_in_from(browser, web, bot, token)
    assert "the match is unrated" in browser.find_element(By.ID, "challenge-offer").text
    keep_screenshot(browser.get_screenshot_as_png(), tmp_path / "challenge-offer.png")
    browser.find_element(By.ID, "challenge-button").click()
    WebDriverWait(browser, PATIENCE_S).until(lambda b: "/play/" in b.current_url)
    rng, played, decision, turns = random.Random(27), Played(), "", 0
    while wait_turn(browser, decision) == "asked":
        decision = state(browser)[1]
        turns += 1
        click_a_move(browser, rng, played)
    assert turns > 0
    assert "you placed" in browser.find_element(By.ID, "human-result").text
    match = wait_for("the challenge to be recorded", lambda: _recorded(db))
    listed = page(f"{web}/matches?game={GAME}")
    row = re.search(rf'<a href="/matches/{match}">#{match}</a></td><td>{GAME}</td><td>([^<]*)<',
                    listed)  # fmt: skip
    assert row is not None and row.group(1) == "unrated, human"
    replay = tmp_path / f"{match}.jsonl"
    replay.write_text(page(f"{web}/matches/{match}/replay.jsonl"))
    verified = subprocess.run(
        [sys.executable, "-m", "niwa", "replay", "verify", str(replay)],
        capture_output=True, text=True, timeout=PATIENCE_S,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert played.clicks > 0
    assert console_errors(browser) == []


def _active(db: Path) -> int | None:
    try:
        return the_bot(db)
    except StopIteration:
        return None


def _recorded(db: Path) -> int | None:
    store = Store.open(str(db), db.parent)
    try:
        done = [m for m in store.matches.matches(game=GAME, state=DONE) if m.kind == CHALLENGE]
        return done[0].id if done else None
    finally:
        store.close()
