"""The seasons on the web pages, over a real store where the built-ins played: the list
of seasons, an ended season's frozen leaderboards, and the bounds on ``?season=``."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from niwa.ladder import seasons
from niwa.ladder.reads import Reads
from niwa.ladder.store import Store
from niwa.ladder.views import Leaderboard
from niwa.web.app import create_app
from tests.web.ladders import play_builtins


@pytest.fixture(scope="module")
def ended(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Leaderboard]]:
    """Pages over a store whose first season (4 Blossom matches) ended; the client and
    that season's Blossom leaderboard as read just before it ended."""
    data = tmp_path_factory.mktemp("seasons")
    play_builtins(str(data / "ladder.db"), data, "blossom", 4)
    store = Store.open(str(data / "ladder.db"), data)
    (before,) = Reads(store).leaderboards("blossom")
    seasons.start(store, "spring", time_control="2s+20s")
    try:
        with TestClient(create_app(store)) as client:
            yield client, before
    finally:
        store.close()


def rows(html: str) -> list[tuple[str, str]]:
    """(bot, Elo) of each row of a leaderboard page's table (a bot's "provisional" mark
    aside: every bot has it when a season starts)."""
    return re.findall(r'<td><a href="/bots/\d+">([^<]+)</a>(?: <span class="provisional"'
                      r'[^>]*>provisional</span>)?</td>\s*<td>[^<]*</td>\s*'
                      r'<td class="num">([^<]+)</td>', html)  # fmt: skip


def test_the_seasons_page_lists_each_season_newest_first(
    ended: tuple[TestClient, Leaderboard],
) -> None:
    client, _ = ended
    html = client.get("/seasons").text
    assert re.findall(r"<tr>\s*<td><a href=\"[^\"]*\">([^<]+)</a>", html) == ["spring", "season-1"]
    assert "2s+20s" in html and "current" in html


def test_an_ended_season_s_leaderboard_shows_its_rows_as_they_were(
    ended: tuple[TestClient, Leaderboard],
) -> None:
    client, before = ended
    html = client.get("/games/blossom?season=season-1").text
    assert "ended: the standings as they were at its end, 4 rated matches" in html
    expected = [(f"{r.bot.name}@{r.bot.version}", f"{r.elo:.0f}") for r in before.rows]
    assert rows(html) == expected
    assert "Rating history" not in html  # the plot is the current season's


def test_the_current_season_s_leaderboard_starts_over(
    ended: tuple[TestClient, Leaderboard],
) -> None:
    client, before = ended
    html = client.get("/games/blossom").text
    assert "Season <strong>spring</strong>: 0 rated matches" in html
    assert [elo for _, elo in rows(html)] == ["new"] * len(before.rows)


def test_the_front_page_of_an_ended_season_links_its_frozen_boards(
    ended: tuple[TestClient, Leaderboard],
) -> None:
    client, _ = ended
    html = client.get("/?season=season-1").text
    assert 'href="/games/blossom?season=season-1"' in html and "ended" in html


@pytest.mark.parametrize(
    ("path", "status", "cause"),
    [
        ("/?season=winter", 404, "no season &#39;winter&#39;"),
        ("/games/blossom?season=winter", 404, "no season"),
        ("/games/sakura?season=season-1", 404, "had no bots in season season-1"),
        ("/games/blossom?season=" + "x" * 65, 400, "season"),
    ],
)
def test_an_unknown_or_overlong_season_is_refused_with_one_line(
    ended: tuple[TestClient, Leaderboard], path: str, status: int, cause: str
) -> None:
    client, _ = ended
    reply = client.get(path)
    assert reply.status_code == status and cause in reply.text
