"""Promotion past a boss on real sandboxed bots: in Blossom, where greedy beats random
nearly always, builtin:greedy starts in the lowest league, guarded by builtin:random,
and moves up once its rating's lower bound passes random's; the leaderboard (read and
on the web) shows each bot's league and next boss."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from starlette.testclient import TestClient

from niwa.ladder import leagues, report, submission
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Store
from niwa.web.app import create_app
from tests.ladder.played_out import played_out

GAME = "blossom"


@dataclass(frozen=True)
class Played:
    store: Store
    climber: int  # builtin:greedy
    stayer: int  # a second builtin:random that joined after the run: unrated, in bronze
    random_boss: int
    gold_boss: int


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    data = tmp_path_factory.mktemp("leagues")
    url = str(data / "ladder.db")
    store = Store.open(url, data)
    try:
        climber = submission.builtin_bot(store, "greedy", GAME, ACTIVE).id
        gold_boss = submission.builtin_bot(store, "greedy", GAME, ACTIVE, alias="gold-boss").id
        setup = leagues.configure(
            store, GAME, ["bronze:builtin:random", f"gold:{gold_boss}"], share=0.0
        )
        random_boss = setup.leagues[0].boss_bot_id
        assert store.leagues.ranks(GAME) == {}  # everyone starts in the lowest
    finally:
        store.close()
    # a bounded run with a fixed seed: it ends after these matches, however slow the machine
    settings = Settings(
        url, data, workers=1, max_matches=24, seed=3, games=(GAME,), log_level="warning",
        builtins_in_process=False,  # every bot in its sandbox, as a submitted one would be
    )  # fmt: skip
    played_out(settings)
    store = Store.open(url, data)
    try:
        stayer = submission.builtin_bot(store, "random", GAME, ACTIVE, alias="stayer").id
        yield Played(store, climber, stayer, random_boss, gold_boss)
    finally:
        store.close()


def test_a_stronger_bot_is_promoted_past_its_boss(played: Played) -> None:
    store = played.store
    assert store.ratings.rated_count(GAME) == 24
    ids = [played.climber, played.random_boss, played.gold_boss]
    fit = store.ratings.rated_fit(GAME, ids)
    assert fit[played.climber].elo - fit[played.climber].ci95 > fit[played.random_boss].elo
    assert store.leagues.ranks(GAME) == {played.climber: 1}  # bosses never move
    since = store.db.scalar("SELECT since FROM league_members WHERE bot_id = ?", (played.climber,))
    assert since is not None


def test_the_leaderboard_rows_carry_league_and_next_boss(played: Played) -> None:
    (board,) = Reads(played.store).leaderboards(GAME)
    places = {r.bot.id: (r.league, r.next_boss) for r in board.rows}
    assert places == {
        played.climber: ("gold", ""),  # the top league: no boss above
        played.stayer: ("bronze", "random@1"),
        played.random_boss: ("bronze", ""),
        played.gold_boss: ("gold", ""),
    }


def test_the_leaderboard_json_names_the_next_boss_and_its_elo(played: Played) -> None:
    (board,) = report.leaderboard_json(Reads(played.store).leaderboards(GAME))["boards"]
    stayer = next(r for r in board["rows"] if r["id"] == played.stayer)
    assert (stayer["league"], stayer["next_boss"]) == ("bronze", "random@1")
    assert isinstance(stayer["next_boss_elo"], float)


def test_the_web_shows_who_is_in_which_league_and_the_next_boss(played: Played) -> None:
    with TestClient(create_app(played.store)) as client:
        board = client.get(f"/games/{GAME}").text
        stayer_page = client.get(f"/bots/{played.stayer}").text
        climber_page = client.get(f"/bots/{played.climber}").text
    assert board.count('<td class="league">gold</td>') == 2
    assert board.count('<td class="league">bronze</td>') == 2
    assert '<td class="next-boss">random@1</td>' in board
    assert "league bronze, next boss random@1 (elo " in stayer_page
    assert "your lower bound none yet)" in stayer_page  # no rated match yet
    assert "league gold: no boss above" in climber_page
