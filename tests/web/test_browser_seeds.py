"""A seed past 2**53 reaches the browser whole: the served match page and the viewer it
mounts show the same digits (a JSON number would be rounded to a double there, and a
copied seed would replay another game)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from niwa import engine
from niwa.ladder import submission
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.played_out import played_out
from tests.web.browser import console_errors
from tests.web.ladders import BUILTINS
from tests.web.served import start_ladder_web

SEED = 2851317608226293593  # the seed of the report: 2851317608226294000 as a double
#: How long the browser waits for the viewer (a guard, not a speed limit).
PATIENCE_S = 30


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """``niwa ladder web`` over a store whose one match was played on SEED; (address,
    match id)."""
    data = tmp_path_factory.mktemp("ladder")
    db = data / "ladder.db"
    store = Store.open(str(db), data)
    try:
        seats = [submission.builtin_bot(store, name, "blossom", ACTIVE).id for name in BUILTINS]
        match_id = store.matches.queue_match(
            "blossom", engine.load("blossom").info.version, seats, seed=SEED
        )
    finally:
        store.close()
    # one match allowed and one queued: the runner plays that one and schedules none
    settings = Settings(str(db), data, workers=1, max_matches=1, games=("blossom",),
                        log_level="warning")  # fmt: skip
    assert played_out(settings) == 1
    proc, web = start_ladder_web(db)
    try:
        yield web, match_id
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_viewer_shows_the_exact_seed_of_a_match_past_2_to_the_53(
    browser: webdriver.Chrome, served: tuple[str, int]
) -> None:
    web, match_id = served
    browser.get(f"{web}/matches/{match_id}")
    WebDriverWait(browser, PATIENCE_S).until(
        lambda d: d.execute_script("return !!window.niwaViewer")
    )
    heading = browser.find_element(By.CSS_SELECTOR, ".nv-head h2").text
    assert f"seed {SEED} " in heading + " "
    page = browser.find_element(By.TAG_NAME, "main").text
    assert f"seed {SEED}." in page  # the server-rendered line says the same
    assert browser.execute_script(
        "return JSON.parse(document.getElementById('niwa-payload').textContent).seed"
    ) == str(SEED)
    assert console_errors(browser) == []
