"""The ``browser`` fixture: one headless Chromium per test process (starting one costs
about 15 CPU seconds on a busy two-core machine, and the browser tests are in some thirty
modules), reset to a fresh state for each module and its console drained before each
test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver

from tests.web.browser import CHROMEDRIVER, CHROMIUM, chrome, console_errors, fresh, responds
from tests.web.matches import GAMES, play


@pytest.fixture(scope="session")
def _chromium_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[webdriver.Chrome]]:
    """The process's browser, in a list: a module that finds it dead starts another."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail("the browser tests need Debian's chromium and chromium-driver "
                    "(apt-get install chromium chromium-driver; .ci/run installs them)")
    held = [chrome(tmp_path_factory.mktemp("chromium-profile"))]
    try:
        yield held
    finally:
        held[0].quit()


@pytest.fixture(scope="module")
def _chromium(
    _chromium_process: list[webdriver.Chrome], tmp_path_factory: pytest.TempPathFactory
) -> webdriver.Chrome:
    """The browser as a new module finds it: no cookies, cache or site storage, online,
    the window's own viewport, one blank tab."""
    if not responds(_chromium_process[0]):
        _chromium_process[0].quit()
        _chromium_process[0] = chrome(tmp_path_factory.mktemp("chromium-profile"))
    fresh(_chromium_process[0])
    return _chromium_process[0]


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
