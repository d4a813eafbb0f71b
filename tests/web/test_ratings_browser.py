"""Plackett-Luce on a served ladder's game page, read in a real browser: after real
matches the page names the model, shows each bot's Elo per player count and the seat
effects table, the numbers of a full fit of the store (the page's process reads the
board first once every match is in: it fits them all from zero)."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder import client, submission
from niwa.ladder.reads import Reads
from niwa.ladder.report import signed
from niwa.ladder.store import ACTIVE, Store
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import stop
from tests.polling import wait_for
from tests.web.browser import console_errors
from tests.web.served import start_web_ladder

MATCHES = 8


def test_the_game_page_shows_plackett_luce_seat_effects_and_player_counts(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "ladder.db"
    store = Store.open(str(db), tmp_path)
    try:
        for alias in ("greedy-a", "greedy-b"):
            submission.builtin_bot(store, "greedy", "blossom", ACTIVE, alias=alias)
        submission.builtin_bot(store, "random", "blossom", ACTIVE)
    finally:
        store.close()
    proc, address, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--time", "500ms+1s",
        "--matches", str(MATCHES),
    )  # fmt: skip
    channel, stub = client.connect(address)
    try:

        def played() -> pb.Leaderboard | None:
            (board,) = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards
            return board if board.matches >= MATCHES else None

        wait_for(f"{MATCHES} rated matches", played)
        reader = Store.open(str(db), tmp_path)
        (board,) = Reads(reader, trusted=True).leaderboards("blossom")
        reader.close()
        assert board.rating == "plackett-luce" and board.seat_effects
        browser.get(f"{web}/games/blossom")
        assert browser.find_element(By.CSS_SELECTOR, ".rating-model").text == "Plackett-Luce"
        shown = [
            [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "table.seat-effects tbody tr")
        ]
        assert shown == [
            [str(s.players), str(s.seat), f"{signed(s.elo)} Elo",
             f"[{signed(s.elo - s.ci95)}, {signed(s.elo + s.ci95)}]"]
            for s in board.seat_effects
        ]  # fmt: skip
        counts = sorted({p.players for r in board.rows for p in r.by_players})
        headers = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard th")]
        assert [h for h in headers if h.endswith("p Elo")] == [f"{n}p Elo" for n in counts]
        for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr"):
            name = row.find_element(By.CSS_SELECTOR, "td a").text
            api = next(r for r in board.rows if f"{r.bot.name}@{r.bot.version}" == name)
            by = {p.players: p for p in api.by_players}
            cells = [c.text for c in row.find_elements(By.CSS_SELECTOR, "td.by-players")]
            assert cells == [
                f"{by[n].elo:.0f} ±{by[n].ci95:.0f}" if n in by else "-" for n in counts
            ]
        assert console_errors(browser) == []
    finally:
        channel.close()
        stop(proc)
