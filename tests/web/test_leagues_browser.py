"""Leagues on a served ladder, read in a real browser: builtin:greedy climbs past its
boss builtin:random while the ladder plays, the API's rows name each bot's league and
next boss, and the game's page in Chromium shows the same."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder import client, leagues, submission
from niwa.ladder.store import ACTIVE, Store
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import stop
from tests.polling import wait_for
from tests.web.browser import console_errors
from tests.web.served import start_web_ladder


def test_the_game_page_shows_each_bots_league_and_next_boss_after_a_promotion(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "ladder.db"
    store = Store.open(str(db), tmp_path)
    try:
        submission.builtin_bot(store, "greedy", "blossom", ACTIVE)  # the climber
        gold = submission.builtin_bot(store, "greedy", "blossom", ACTIVE, alias="gold-boss")
        leagues.configure(store, "blossom", ["bronze:builtin:random", f"gold:{gold.id}"], 0.0)
    finally:
        store.close()
    proc, address, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--time", "500ms+1s"
    )
    channel, stub = client.connect(address)
    try:

        def promoted() -> pb.Leaderboard | None:
            (board,) = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards
            climber = next(r for r in board.rows if r.bot.name == "greedy")
            return board if climber.league == "gold" else None

        board = wait_for("greedy promoted to gold", promoted)
        api = {f"{r.bot.name}@{r.bot.version}": (r.league, r.next_boss) for r in board.rows}
        assert api == {
            "greedy@1": ("gold", ""), "gold-boss@1": ("gold", ""), "random@1": ("bronze", ""),
        }  # fmt: skip

        browser.get(f"{web}/games/blossom")
        shown = {
            row.find_element(By.CSS_SELECTOR, "td a").text: (
                row.find_element(By.CSS_SELECTOR, "td.league").text,
                row.find_element(By.CSS_SELECTOR, "td.next-boss").text,
            )
            for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
        }
        assert shown["greedy@1"] == ("gold", "")
        assert shown["random@1"] == ("bronze", "")
        assert console_errors(browser) == []
    finally:
        channel.close()
        stop(proc)
