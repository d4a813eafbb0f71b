"""Provisional bots on a served ladder, read in Chromium: a bot that joins a settled
field shows "provisional" on the game's page and on its own, and loses the mark once
the ladder has played it enough (matchmaking plays it first)."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder import submission
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.played_out import played_out
from tests.ladder.serving import stop
from tests.polling import wait_for
from tests.web.browser import console_errors
from tests.web.served import get, start_ladder_web, start_web_ladder

FIELD = (("greedy", ""), ("greedy", "greedy-b"), ("random", ""))


def settled_field(db: Path, data: Path) -> None:
    """Three built-ins, played until none is provisional."""
    store = Store.open(str(db), data)
    try:
        for name, alias in FIELD:
            submission.builtin_bot(store, name, "blossom", ACTIVE, alias=alias)
    finally:
        store.close()
    settings = Settings(
        str(db), data, workers=1, max_matches=90, seed=3, games=("blossom",),
        log_level="warning", time_control="500ms+1s",
    )  # fmt: skip
    played_out(settings)
    store = Store.open(str(db), data)
    try:
        assert not any(s.provisional for s in store.ratings.skills("blossom").values())
    finally:
        store.close()


def marks(browser: webdriver.Chrome, web: str) -> dict[str, bool]:
    """Each leaderboard row's bot and whether it carries the provisional mark."""
    browser.get(f"{web}/games/blossom")
    return {
        row.find_element(By.CSS_SELECTOR, "td a").text: bool(
            row.find_elements(By.CSS_SELECTOR, "span.provisional")
        )
        for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    }


def test_a_new_bot_shows_provisional_until_the_ladder_has_placed_it(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "ladder.db"
    settled_field(db, tmp_path)
    store = Store.open(str(db), tmp_path)
    try:
        newcomer = submission.builtin_bot(store, "greedy", "blossom", ACTIVE, alias="newcomer")
    finally:
        store.close()

    # the pages alone (no runner yet): the newcomer is marked, the settled field is not
    proc, web = start_ladder_web(db)
    try:
        assert marks(browser, web) == {
            "greedy@1": False, "greedy-b@1": False, "random@1": False, "newcomer@1": True,
        }  # fmt: skip
        browser.get(f"{web}/bots/{newcomer.id}")
        assert "provisional" in browser.find_element(By.ID, "provisional").text
        assert console_errors(browser) == []
    finally:
        stop(proc)

    proc, _, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--time", "500ms+1s"
    )
    try:
        wait_for(
            "the newcomer's page to drop the provisional mark",
            lambda: 'id="provisional"' not in get(f"{web}/bots/{newcomer.id}")[1] or None,
        )
        assert marks(browser, web) == {
            "greedy@1": False, "greedy-b@1": False, "random@1": False, "newcomer@1": False,
        }  # fmt: skip
        browser.get(f"{web}/bots/{newcomer.id}")
        assert not browser.find_elements(By.ID, "provisional")
        assert console_errors(browser) == []
    finally:
        stop(proc)
    store = Store.open(str(db), tmp_path)
    try:
        placed = store.ratings.skills("blossom")[newcomer.id]
        assert placed.matches >= 1 and not placed.provisional
    finally:
        store.close()
