"""The match page's fork form in Chromium, on ``niwa ladder web`` over a real store: the
step follows the replay viewer's, and sending the form opens the queued fork's page."""

from __future__ import annotations

import re
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from niwa.ladder.store import Store
from tests.ladder.forking import forkable
from tests.polling import PATIENCE_S
from tests.web.browser import address_shows, console_errors
from tests.web.served import start_ladder_web
from tests.web.test_upload_browser import browser_sign_in

#: The step the viewer is moved to before the form is sent.
STEP = 7


def test_the_form_sends_the_viewers_step_and_opens_the_fork(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "ladder.db"), tmp_path)
    try:
        f = forkable(store)
    finally:
        store.close()
    proc, web = start_ladder_web(tmp_path / "ladder.db")
    try:
        browser_sign_in(browser, web, f.tokens["alice"], "alice")
        browser.get(f"{web}/matches/{f.match_id}")
        WebDriverWait(browser, PATIENCE_S).until(
            lambda b: b.execute_script("return Boolean(window.niwaViewer)"))  # fmt: skip
        browser.execute_script("window.niwaViewer.show(arguments[0])", STEP)
        assert address_shows(browser, f"#step={STEP}")
        browser.find_element(By.CSS_SELECTOR, "#fork button[type=submit]").click()
        WebDriverWait(browser, PATIENCE_S).until(
            lambda b: re.search(r"/matches/\d+$", b.current_url)
            and not b.current_url.endswith(f"/matches/{f.match_id}"))  # fmt: skip
        kind = browser.find_element(By.CLASS_NAME, "fork-of").text
        assert kind == f"unrated, fork of #{f.match_id} at step {STEP}"
        assert console_errors(browser) == []
    finally:
        proc.terminate()
        proc.wait(timeout=PATIENCE_S)
