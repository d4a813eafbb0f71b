"""A game's balance page, served by ``niwa ladder web`` over a store where the
built-ins played real Sakura matches (some between bots rated above the strong bar),
read in Chromium and as JSON: the page shows what the JSON and the CLI say."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder.runner import Settings
from niwa.ladder.store import Store
from niwa.ladder.store.balance import STRONG_ELO
from tests.ladder.played_out import played_out
from tests.ladder.tiny_bots import cli
from tests.web.browser import console_errors
from tests.web.ladders import played_store
from tests.web.served import get, start_ladder_web

GAME = "sakura"
WEAK, STRONG = 2, 2  # matches played before and after the bots are rated above the bar


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("balance")
    db = played_store(data, GAME, WEAK)
    store = Store.open(str(db), data)
    try:  # as if they had climbed: the next matches are between strong bots
        store.db.execute("UPDATE ratings SET elo = ?", (STRONG_ELO + 300,))
    finally:
        store.close()
    settings = Settings(str(db), data, workers=1, max_matches=STRONG, seed=2, games=(GAME,),
                        log_level="warning")  # fmt: skip
    played_out(settings)
    proc, web = start_ladder_web(db)
    try:
        yield web, db
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def _report(web: str) -> dict[str, object]:
    status, body, headers = get(f"{web}/games/{GAME}/balance.json", "application/json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    found: dict[str, object] = json.loads(body)
    return found


def test_the_json_counts_every_rated_match_and_the_strong_ones_apart(
    served: tuple[str, Path],
) -> None:
    report = _report(served[0])
    pools = report["pools"]
    assert isinstance(pools, dict)
    assert sum(size["matches"] for size in pools["all"]) == WEAK + STRONG
    assert sum(size["matches"] for size in pools["strong"]) == STRONG
    for size in pools["all"]:
        assert len(size["seats"]) == size["players"]
        assert set(size["figures"]) == {"lead_changes", "winner_late", "order_late",
                                        "margin", "spread", "rounds", "steps"}  # fmt: skip


def test_the_cli_json_is_the_pages_json(served: tuple[str, Path]) -> None:
    web, db = served
    code, out = cli("ladder", "balance", GAME, "--db", str(db), "--json")
    assert code == 0, out
    printed = json.loads(out)
    printed.pop("schema")
    assert printed == _report(web)


def test_the_page_draws_a_seat_plot_per_player_count_with_every_seat(
    browser: webdriver.Chrome, served: tuple[str, Path]
) -> None:
    web = served[0]
    pools = _report(web)["pools"]
    assert isinstance(pools, dict)
    browser.get(f"{web}/games/{GAME}/balance")
    sections = browser.find_elements(By.CSS_SELECTOR, "section.balance")
    assert [s.get_attribute("id") for s in sections] == [
        f"players-{size['players']}" for size in pools["all"]
    ]
    for section, size in zip(sections, pools["all"], strict=True):
        wins, places = section.find_elements(By.CSS_SELECTOR, "svg.plot")
        assert len(wins.find_elements(By.CSS_SELECTOR, "g.mean")) == size["players"]
        assert len(places.find_elements(By.CSS_SELECTOR, "g.mean")) == size["players"]
        assert wins.find_elements(By.CSS_SELECTOR, "line.mark")  # the fair share
    assert console_errors(browser) == []


def test_the_pages_table_shows_the_jsons_figures(
    browser: webdriver.Chrome, served: tuple[str, Path]
) -> None:
    web = served[0]
    pools = _report(web)["pools"]
    assert isinstance(pools, dict)
    browser.get(f"{web}/games/{GAME}/balance")
    size = pools["all"][0]
    section = browser.find_element(By.ID, f"players-{size['players']}")
    rows = section.find_elements(By.CSS_SELECTOR, "table.balance-figures tbody tr")
    lead = next(r for r in rows if r.text.startswith("lead changes per match"))
    every = lead.find_elements(By.TAG_NAME, "td")[2].text
    figure = size["figures"]["lead_changes"]
    assert every == f"{figure['mean']:.2f} [{figure['low']:.2f}, {figure['high']:.2f}]"
    assert f"{size['matches']} rated matches" in section.text


def test_the_leaderboard_links_to_the_balance_page(
    browser: webdriver.Chrome, served: tuple[str, Path]
) -> None:
    browser.get(f"{served[0]}/games/{GAME}")
    browser.find_element(By.LINK_TEXT, "Balance").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == f"{GAME} balance"


def test_a_game_the_ladder_does_not_play_is_a_json_404_naming_its_games(
    served: tuple[str, Path],
) -> None:
    status, body, _ = get(f"{served[0]}/games/chess/balance.json", "application/json")
    assert status == 404
    assert json.loads(body)["error"].startswith("no 'chess' ladder here: its games are blossom")


def test_the_page_of_a_game_the_ladder_does_not_play_is_a_404(
    served: tuple[str, Path],
) -> None:
    status, body, _ = get(f"{served[0]}/games/chess/balance")
    assert status == 404 and "no &#39;chess&#39; ladder here" in body


def test_the_plots_are_the_strong_matches_where_there_are_any(
    browser: webdriver.Chrome, served: tuple[str, Path]
) -> None:
    web = served[0]
    pools = _report(web)["pools"]
    assert isinstance(pools, dict)
    strong = {size["players"] for size in pools["strong"]}
    assert strong  # the fixture played some
    browser.get(f"{web}/games/{GAME}/balance")
    for size in pools["all"]:
        section = browser.find_element(By.ID, f"players-{size['players']}")
        titles = [t.get_attribute("textContent") for t in
                  section.find_elements(By.CSS_SELECTOR, "svg.plot > title")]  # fmt: skip
        pool = ("strong matches" if size["players"] in strong
                else "all rated matches (no strong ones yet)")  # fmt: skip
        assert titles == [f"win share by seat, {pool}", f"mean place by seat, {pool}"]
