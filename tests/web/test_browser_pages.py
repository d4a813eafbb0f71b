"""The served pages in a real browser (Debian's Chromium): a real ladder process with
``--web`` plays every game with built-in bots; for each game the test opens the
leaderboard and a match, steps with the keyboard, switches seats, and checks what is
drawn against the replay's views, with no console errors. Screenshots go under the
test's tmp dir (``NIWA_WEB_SCREENSHOTS``: also there, for docs/web.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from niwa import engine
from niwa.ladder import submission
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.serving import stop
from tests.polling import PATIENCE_S, wait_for
from tests.web.browser import address_shows, console_errors, keep_screenshot
from tests.web.ladders import BUILTINS
from tests.web.served import done_matches, start_web_ladder

GAMES = engine.games()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A ladder of built-in bots in every game, serving its pages; (address, tmp dir).
    The built-ins are ordinary active bots, as the demo registers them (sparring
    partners would play only submitted bots)."""
    data = tmp_path_factory.mktemp("ladder")
    store = Store.open(str(data / "ladder.db"))
    try:
        for game in GAMES:
            for name in BUILTINS:
                submission.builtin_bot(store, name, game, ACTIVE)
    finally:
        store.close()
    proc, _, web = start_web_ladder(
        data / "ladder.db", data / "ladder.log", "--workers", "1", "--seed", "3"
    )
    try:
        for game in GAMES:
            wait_for(f"two rated {game} matches", lambda g=game: len(done_matches(web, g)) >= 2)
        yield web, data
    finally:
        stop(proc)


def shot(driver: webdriver.Chrome, folder: Path, name: str) -> Path:
    """A screenshot of the window that is not blank, kept under ``folder`` (and
    NIWA_WEB_SCREENSHOTS)."""
    path = folder / f"{name}.png"
    keep_screenshot(driver.get_screenshot_as_png(), path, colours=5)
    return path


def viewer(driver: webdriver.Chrome) -> Any:
    return WebDriverWait(driver, PATIENCE_S).until(
        lambda d: d.execute_script("return window.niwaViewer ? window.niwaViewer.state : null")
    )


def board(driver: webdriver.Chrome) -> str:
    return str(driver.execute_script("return document.querySelector('.nv-board').innerHTML"))


def drawn_scores(driver: webdriver.Chrome) -> dict[int, str]:
    """The scores the board shows, by seat (renderers mark them data-field="score")."""
    found = driver.find_elements(By.CSS_SELECTOR, ".nv-board [data-field='score'][data-seat]")
    return {int(str(e.get_attribute("data-seat"))): e.text.strip() for e in found}


def score_text(score: Any) -> str:
    """A score as drawn: a number, or a breakdown's total."""
    return str(score["total"] if isinstance(score, dict) else score)


@pytest.mark.parametrize("game", GAMES)
def test_a_game_s_pages_and_replay_play_in_the_browser(
    browser: webdriver.Chrome, ladder: tuple[str, Path], game: str, tmp_path: Path
) -> None:
    web, _ = ladder
    browser.get(f"{web}/games/{game}")
    assert browser.find_element(By.TAG_NAME, "h1").text == game
    rows = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    assert len(rows) == 2
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.plot")) == 2
    shot(browser, tmp_path, f"{game}-leaderboard")

    # the newest finished match before the list loads: the list shows the newest 25,
    # and the ladder plays on, so the oldest finished one may have left the page
    match_id = done_matches(web, game)[0]
    browser.find_element(By.LINK_TEXT, "Matches").click()
    shot(browser, tmp_path, f"{game}-matches")
    browser.find_element(By.LINK_TEXT, f"#{match_id}").click()
    assert viewer(browser)["step"] == 0

    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert viewer(browser)["step"] == 3
    assert address_shows(browser, "#step=3")
    body.send_keys(Keys.ARROW_LEFT)
    assert viewer(browser)["step"] == 2

    views = browser.execute_script("return window.niwaViewer.views(2)")
    spectator = board(browser)
    Select(browser.find_element(By.CSS_SELECTOR, ".nv-seat-select")).select_by_value("1")
    assert viewer(browser)["seat"] == 1
    assert address_shows(browser, "#step=2&seat=1")
    if json.dumps(views[2], sort_keys=True) != json.dumps(views[0], sort_keys=True):
        assert board(browser) != spectator, "seat 1's view is drawn as the spectator's"
    shot(browser, tmp_path, f"{game}-match")

    body.send_keys(Keys.END)
    last = browser.execute_script("return window.niwaViewer.views(window.niwaViewer.state.step)")
    scores = last[2].get("scores") if isinstance(last[2], dict) else None
    checked = scores is not None and bool(drawn_scores(browser))
    if checked:  # the final scores, as seat 1 saw them
        assert drawn_scores(browser) == {i: score_text(s) for i, s in enumerate(scores)}

    timings = browser.execute_script("return window.niwaViewer.timings")
    assert timings["steps_ms"], "no step was timed"
    steps = timings["steps_ms"]
    print(f"{game}: mount {timings['mount_ms']:.1f} ms, {len(steps)} steps mean "
          f"{sum(steps) / len(steps):.1f} ms, max {max(steps):.1f} ms, scores checked: "
          f"{checked}, load average {os.getloadavg()[0]:.2f}")
    assert console_errors(browser) == []


def test_the_bot_page_links_its_versions_and_opponents(
    browser: webdriver.Chrome, ladder: tuple[str, Path], tmp_path: Path
) -> None:
    web, _ = ladder
    browser.get(f"{web}/games/{GAMES[0]}")
    browser.find_element(By.CSS_SELECTOR, "table.leaderboard tbody tr a").click()
    versions = browser.find_elements(By.XPATH, "//h2[.='Versions']/following-sibling::table[1]//tr")
    assert len(versions) >= 2  # the header and this version
    opponents = browser.find_elements(
        By.XPATH, "//h2[.='Head to head']/following-sibling::table[1]//tbody/tr"
    )
    assert len(opponents) == 1
    shot(browser, tmp_path, "bot")
    assert console_errors(browser) == []


def test_the_match_list_adds_matches_as_they_finish(
    browser: webdriver.Chrome, ladder: tuple[str, Path]
) -> None:
    web, _ = ladder
    browser.get(f"{web}/matches")
    WebDriverWait(browser, PATIENCE_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#match-rows tr.fresh")
    )
    assert browser.find_element(By.ID, "live").is_displayed()
    assert console_errors(browser) == []
