"""The ``browser`` fixture: one headless Chromium per test module (starting one costs
a second or two), its console drained before each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver

from tests.web.browser import CHROMEDRIVER, CHROMIUM, chrome, console_errors
from tests.web.matches import GAMES, play


@pytest.fixture(scope="module")
def _chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail("the browser tests need Debian's chromium and chromium-driver "
                    "(apt-get install chromium chromium-driver; .ci/run installs them)")
    driver = chrome(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(_chromium: webdriver.Chrome) -> webdriver.Chrome:
    """A Selenium Chrome driver; ``tests.web.browser.console_errors(browser)`` gives
    the SEVERE console lines since the test began."""
    console_errors(_chromium)
    return _chromium


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Each game's replay and offline viewer page, from one real match (three seats of
    Sakura, two of the others)."""
    directory = tmp_path_factory.mktemp("viewer")
    out = {}
    for game in GAMES:
        html = directory / f"{game}.html"
        replay = play(game, directory, seats=3 if game == "sakura" else 2, html=html)
        out[game] = (replay, html)
    return out
