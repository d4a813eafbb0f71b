"""A bot page in a real browser (Debian's Chromium) after real Sakura matches of three
built-in bots at tables of 2 and 3 seats: its results by seat, by player count and at
the same table as each opponent, and its kingmaker check, agree with the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder import submission
from niwa.ladder.reads import Reads, bot_view
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.played_out import played_out
from tests.ladder.serving import stop
from tests.web.browser import console_errors
from tests.web.served import start_ladder_web

GAME = "sakura"
MATCHES = 12


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, int]]:
    """Random, greedy and a second random play MATCHES rated Sakura matches; the pages'
    address, the store and the id of the bot whose page the tests open."""
    data = tmp_path_factory.mktemp("seats")
    db = data / "ladder.db"
    store = Store.open(str(db), data)
    try:
        bots = [
            submission.builtin_bot(store, "random", GAME, ACTIVE),
            submission.builtin_bot(store, "greedy", GAME, ACTIVE),
            submission.builtin_bot(store, "random", GAME, ACTIVE, alias="random-2"),
        ]
    finally:
        store.close()
    settings = Settings(
        str(db), data, workers=1, max_matches=MATCHES, seed=5, games=(GAME,),
        log_level="warning",
    )  # fmt: skip
    played_out(settings)
    proc, web = start_ladder_web(db)
    try:
        yield web, db, bots[1].id
    finally:
        stop(proc)


def cells(driver: webdriver.Chrome, table_id: str) -> list[list[str]]:
    rows = driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")
    return [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]


def test_the_bot_page_shows_its_results_by_seat_and_player_count(
    browser: webdriver.Chrome, ladder: tuple[str, Path, int]
) -> None:
    web, db, bot_id = ladder
    store = Store.open(str(db))
    bot = bot_view(store.bots.bot(bot_id))
    expected = Reads(store).bot_tables(bot)
    store.close()
    browser.get(f"{web}/bots/{bot_id}")
    by_seat = cells(browser, "by-seat")
    assert [(int(r[0]), int(r[1]), int(r[2])) for r in by_seat] == [
        (line.players, line.seat, line.places.matches) for line in expected.by_seat
    ]
    by_players = cells(browser, "by-players")
    assert {int(r[0]): int(r[1]) for r in by_players} == {
        line.players: line.places.matches for line in expected.by_players
    }
    assert sum(int(r[1]) for r in by_players) == bot.games > 0
    assert 3 in {line.players for line in expected.by_players}  # tables of three too
    assert all("(" in r[4] and "%" in r[4] for r in by_seat)  # a share with its interval
    assert console_errors(browser) == []


def test_the_bot_page_shows_each_opponent_at_the_same_table_and_the_kingmaker_check(
    browser: webdriver.Chrome, ladder: tuple[str, Path, int]
) -> None:
    web, db, bot_id = ladder
    store = Store.open(str(db))
    expected = Reads(store).bot_tables(bot_view(store.bots.bot(bot_id)))
    store.close()
    browser.get(f"{web}/bots/{bot_id}")
    opponents = cells(browser, "same-table")
    assert [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in opponents] == [
        (expected.labels[o.other_id], o.together, o.ahead_count, o.level)
        for o in expected.opponents
    ]
    assert len(opponents) == 2  # random and its copy
    check = browser.find_element(By.ID, "kingmaker")
    assert check.get_attribute("class") == ("flagged" if expected.kingmaker.flagged else "clear")
    assert "chi-squared" in check.text and "Bonferroni" in check.text
    assert console_errors(browser) == []
