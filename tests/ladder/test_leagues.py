"""Leagues (niwa/ladder/leagues.py): the promotion rule, matchmaking within a league
and the league above, and the leagues an admin sets in a real store."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import leagues, seasons, submission
from niwa.ladder.elo import Estimate
from niwa.ladder.scheduler import Candidate, LeagueDraw, pick_group
from niwa.ladder.store import ACTIVE, SYSTEM_OWNER, Store, StoreError
from tests.captured_logs import every_event

BOSSES = [1500.0, 1700.0, 1900.0]  # bronze, silver, gold (the top: nothing above)


def test_a_bot_moves_up_when_its_lower_bound_passes_its_boss() -> None:
    assert leagues.next_rank(0, Estimate(1600, 90), BOSSES) == 1


def test_a_bot_whose_lower_bound_does_not_pass_its_boss_stays() -> None:
    assert leagues.next_rank(0, Estimate(1600, 100), BOSSES) == 0  # 1500 is not past 1500
    assert leagues.next_rank(0, Estimate(1700, 250), BOSSES) == 0


def test_a_bot_passes_every_boss_its_lower_bound_exceeds_up_to_the_top() -> None:
    assert leagues.next_rank(0, Estimate(1800, 50), BOSSES) == 2
    assert leagues.next_rank(0, Estimate(3000, 10), BOSSES) == 2


def test_a_bot_never_moves_down() -> None:
    assert leagues.next_rank(2, Estimate(1000, 10), BOSSES) == 2


def test_an_unrated_boss_lets_nobody_past() -> None:
    assert leagues.next_rank(0, Estimate(2500, 10), [None, 1700.0, 1900.0]) == 0


# league 0: bots 1-3 (1 the least played), league 1: bots 4-6
BOTS = [Candidate(1, 1500, 0)] + [Candidate(i, 1500, 5) for i in range(2, 7)]
LEAGUE_OF = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1}


class FixedRandom(random.Random):
    """A random source whose ``random()`` always answers ``value`` (the league draw)."""

    def __init__(self, value: float, seed: int) -> None:
        super().__init__(seed)
        self.value = value

    def random(self) -> float:
        return self.value


def test_opponents_come_from_the_bots_own_league() -> None:
    draw = LeagueDraw(LEAGUE_OF, share_above=0.2)
    for seed in range(20):
        group = pick_group(BOTS, 3, FixedRandom(0.5, seed), leagues=draw)
        assert {c.bot_id for c in group[1:]} == {2, 3}


def test_a_share_of_tables_is_drawn_from_the_league_above() -> None:
    draw = LeagueDraw(LEAGUE_OF, share_above=0.2)
    for seed in range(20):
        group = pick_group(BOTS, 3, FixedRandom(0.1, seed), leagues=draw)
        assert {c.bot_id for c in group[1:]} <= {4, 5, 6}


def test_the_share_above_is_kept_over_many_tables() -> None:
    draw = LeagueDraw(LEAGUE_OF, share_above=0.25)
    rng = random.Random(7)
    above = sum(pick_group(BOTS, 2, rng, leagues=draw)[1].bot_id > 3 for _ in range(2000))
    assert 400 <= above <= 600  # 500 expected; the seed makes it exact every run


def test_the_top_league_plays_within_itself() -> None:
    top = [Candidate(4, 1500, 0)] + [c for c in BOTS if c.bot_id != 4]
    draw = LeagueDraw(LEAGUE_OF, share_above=1.0)
    for seed in range(20):
        group = pick_group(top, 3, FixedRandom(0.0, seed), leagues=draw)
        assert {c.bot_id for c in group[1:]} == {5, 6}


def test_a_league_too_small_for_the_table_draws_from_the_whole_game() -> None:
    draw = LeagueDraw(LEAGUE_OF, share_above=0.0)
    group = pick_group(BOTS, 4, FixedRandom(0.5, 1), leagues=draw)
    assert len(group) == 4 and group[0].bot_id == 1


def test_the_admin_sets_leagues_with_built_in_bosses(store: Store) -> None:
    setup = leagues.configure(
        store, "blossom", ["bronze:builtin:random", "silver:builtin:greedy"], 0.3
    )
    assert [league.name for league in setup.leagues] == ["bronze", "silver"]
    assert setup.share_above == 0.3
    bosses = [store.bots.bot(league.boss_bot_id) for league in setup.leagues]
    assert [(b.source, b.owner, b.status) for b in bosses] == [
        ("builtin:random", SYSTEM_OWNER, "active"),
        ("builtin:greedy", SYSTEM_OWNER, "active"),
    ]


def test_bosses_sit_in_the_league_they_guard_and_others_start_lowest(store: Store) -> None:
    setup = leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    low, high = (league.boss_bot_id for league in setup.leagues)
    assert leagues.league_of(setup, {}, [low, high, 999]) == {low: 0, high: 1, 999: 0}


def test_a_promotion_is_recorded_and_never_undone(store: Store) -> None:
    setup = leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    low, high = (league.boss_bot_id for league in setup.leagues)
    bot = submission.builtin_bot(store, "mcts", "blossom", ACTIVE).id
    fit = {low: Estimate(1400, 50), high: Estimate(1600, 50), bot: Estimate(1500, 40)}
    assert leagues.promote(store, setup, fit) == [bot]
    assert store.leagues.ranks("blossom") == {bot: 1}
    assert leagues.promote(store, setup, {**fit, bot: Estimate(900, 40)}) == []
    assert store.leagues.ranks("blossom") == {bot: 1}


def test_setting_leagues_again_starts_everyone_in_the_lowest(store: Store) -> None:
    setup = leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    store.leagues.promote("blossom", submission.builtin_bot(store, "mcts", "blossom").id, 1)
    leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    assert store.leagues.ranks("blossom") == {}
    assert setup.game == "blossom"


def test_clearing_a_games_leagues_leaves_it_without(store: Store) -> None:
    leagues.configure(store, "blossom", ["a:builtin:random"], 0.2)
    store.leagues.clear("blossom")
    assert store.leagues.setup("blossom") is None


@pytest.mark.parametrize(
    ("specs", "cause"),
    [
        (["bronze"], "NAME:BOSS"),
        (["Bronze:builtin:random"], "lowercase"),
        (["a:builtin:random", "a:builtin:greedy"], "named twice"),
        (["a:builtin:random", "b:builtin:random"], "guards two leagues"),
        (["a:nobody@1"], "no active bot of blossom"),
        ([], "1 to 8 leagues"),
    ],
)
def test_a_wrong_league_setting_is_refused_naming_its_cause(
    store: Store, specs: list[str], cause: str
) -> None:
    with pytest.raises(StoreError, match=cause):
        leagues.configure(store, "blossom", specs, 0.2)
    assert store.leagues.setup("blossom") is None


@pytest.mark.parametrize("text", ["-0.1", "1.5", "half"])
def test_a_share_above_outside_0_to_1_is_refused(text: str) -> None:
    with pytest.raises(StoreError, match="fraction from 0 to 1"):
        leagues.parse_share(text)


def test_the_league_commands_set_show_and_clear_a_games_leagues(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "ladder.db")
    Store.open(db, tmp_path).close()
    assert main(["ladder", "league", "set", "blossom", "bronze:builtin:random",
                 "silver:builtin:greedy", "--share-above", "0.25", "--db", db]) == 0  # fmt: skip
    assert "25% of tables against the league above" in capsys.readouterr().out
    assert main(["ladder", "league", "show", "blossom", "--json", "--db", db]) == 0
    shown = json.loads(capsys.readouterr().out)["leagues"]
    assert [(x["name"], x["boss"]) for x in shown["leagues"]] == [
        ("bronze", "random@1"), ("silver", "greedy@1"),
    ]  # fmt: skip
    assert main(["ladder", "league", "clear", "blossom", "--db", db]) == 0
    assert main(["ladder", "league", "show", "blossom", "--db", db]) == 0
    assert "blossom has no leagues" in capsys.readouterr().out


def test_showing_leagues_without_the_store_is_refused_naming_the_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ladder", "league", "show", "blossom", "--server", "127.0.0.1:1"]) == 2
    assert "needs --db: the server shows them on each leaderboard row" in capsys.readouterr().err


def test_a_wrong_share_on_the_command_line_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "ladder.db")
    Store.open(db, tmp_path).close()
    assert main(["ladder", "league", "set", "blossom", "a:builtin:random",
                 "--share-above", "2", "--db", db]) == 2  # fmt: skip
    assert "fraction from 0 to 1" in capsys.readouterr().err


def test_a_season_start_puts_every_bot_back_in_the_lowest_league(store: Store) -> None:
    setup = leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    climber = submission.builtin_bot(store, "mcts", "blossom", ACTIVE).id
    store.leagues.promote("blossom", climber, 1)
    seasons.start(store, "next")
    assert store.leagues.ranks("blossom") == {}
    assert store.leagues.setup("blossom") == setup  # the leagues themselves stay


def test_a_promotion_is_one_league_promoted_event(store: Store) -> None:
    setup = leagues.configure(store, "blossom", ["a:builtin:random", "b:builtin:greedy"], 0.2)
    low, high = (league.boss_bot_id for league in setup.leagues)
    bot = submission.builtin_bot(store, "mcts", "blossom", ACTIVE).id
    fit = {low: Estimate(1400, 50), high: Estimate(1600, 50), bot: Estimate(1500, 40)}
    with every_event() as logged:
        leagues.promote(store, setup, fit)
        leagues.promote(store, setup, fit)  # already there: nothing more
    assert [(e["event"], e["game"], e["bot_id"], e["league"]) for e in logged] == [
        ("league_promoted", "blossom", bot, "b"),
    ]
