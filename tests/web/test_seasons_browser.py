"""A season on a served ladder of real sandboxed bots, read in a real browser: two
submitted bots play, an admin starts a season from the CLI, they play on in the new one,
and the ended season's standings read the same through the API and on its page."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import stop
from tests.ladder.tiny_bots import QUICK, cli, owner_tokens, write_bot
from tests.polling import wait_for
from tests.web.browser import console_errors, keep_screenshot
from tests.web.served import start_web_ladder


def test_the_standings_of_an_ended_season_stay_readable_while_the_next_one_plays(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "ladder.db"
    tokens = owner_tokens(db, admins=("root",), owners=("alice",))
    bots = [write_bot(tmp_path, name, "1.0.0", QUICK) for name in ("quick", "swift")]
    proc, address, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--time", "500ms+1s"
    )
    channel, stub = client.connect(address)
    try:
        for bot in bots:
            code, out = cli("ladder", "submit", str(bot), "--server", address,
                            "--token", tokens["alice"])  # fmt: skip
            assert code == 0 and "accepted" in out, out

        def board(season: str = "", matches: int = 2) -> pb.Leaderboard | None:
            request = pb.LeaderboardRequest(game="blossom", season=season)
            (found,) = stub.GetLeaderboard(request, metadata=client.auth(tokens["root"])).boards
            return found if found.matches >= matches else None

        wait_for("two rated matches", board)
        code, out = cli("ladder", "season", "start", "spring", "--server", address,
                        "--token", tokens["root"])  # fmt: skip
        assert code == 0, out
        frozen = board("season-1")
        assert frozen is not None and frozen.season == "season-1"
        assert {r.bot.name for r in frozen.rows} == {"quick", "swift"}
        assert all(r.bot.games >= 2 for r in frozen.rows)

        new = wait_for("two rated matches in the new season", board)
        assert new.season == "spring" and all(r.bot.status == "active" for r in new.rows)
        assert board("season-1") == frozen  # the new season's matches leave it as it was
        code, out = cli("ladder", "leaderboard", "blossom", "--season", "season-1",
                        "--server", address)  # fmt: skip
        assert code == 0 and f"{frozen.matches} rated matches (season season-1)" in out

        browser.get(f"{web}/seasons")
        browser.find_element(By.LINK_TEXT, "season-1").click()
        browser.find_element(By.CSS_SELECTOR, "main table a[href^='/games/blossom']").click()
        assert "ended: the standings as they were" in browser.find_element(
            By.CSS_SELECTOR, "p.frozen").text
        shown = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")][:6]
            for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
        ]
        assert shown == [
            [str(r.rank), f"{r.bot.name}@{r.bot.version}" + " provisional" * r.provisional,
             "alice", f"{r.elo:.0f}", f"±{r.ci95:.0f}", str(r.bot.games)]
            for r in frozen.rows
        ]  # fmt: skip
        keep_screenshot(browser.get_screenshot_as_png(), tmp_path / "season-frozen.png")
        assert console_errors(browser) == []
    finally:
        channel.close()
        stop(proc)
