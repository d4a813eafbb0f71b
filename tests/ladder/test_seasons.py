"""Ladder seasons on a real store (SQLite and PostgreSQL), with the built-in bots
playing real matches: a start freezes the standings exactly as they were and the
ratings start over; the frozen standings stay as they were while the new season plays;
a season plays only its games, at its time control."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.ladder import elo, seasons, submission
from niwa.ladder.db import Database
from niwa.ladder.reads import NotFound, Reads
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, DONE, FAILED, Finished, SeatResult, Store, StoreError
from tests.ladder.played_out import played_out
from tests.ladder.test_upgrade import schema_4_store
from tests.web.ladders import BUILTINS, play_builtins


def play(url: str, data: Path, matches: int, games: tuple[str, ...] = ("blossom",),
         time_control: str = "1s+30s") -> None:  # fmt: skip
    """``matches`` more rated matches played by a runner on the store at ``url``."""
    settings = Settings(
        url, data, workers=1, max_matches=matches, seed=len(games), games=games,
        log_level="warning", time_control=time_control,
    )  # fmt: skip
    played_out(settings)


@pytest.fixture
def url(db_url: str, tmp_path: Path) -> str:
    """A store on each engine where the built-ins played 4 rated Blossom matches."""
    play_builtins(db_url, tmp_path, "blossom", 4)
    return db_url


@pytest.fixture
def played(url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store.open(url, tmp_path)
    yield store
    store.close()


def test_a_store_from_before_seasons_gets_a_first_season_owning_every_match(
    db_url: str, tmp_path: Path
) -> None:
    url = schema_4_store(db_url, tmp_path)
    db = Database.open(url)
    rated = {
        str(r["game"]): int(r["n"])
        for r in db.execute(
            "SELECT game, COUNT(*) AS n FROM matches WHERE kind = 'rated' AND state = 'done' "
            "GROUP BY game"
        )
    }
    db.close()
    store = Store.open(url, tmp_path)
    (first,) = store.seasons.seasons(10)
    assert first.name == "season-1" and first.current and first.games == ()
    matches = store.db.scalar("SELECT COUNT(*) FROM matches")
    owned = store.db.scalar("SELECT COUNT(*) FROM season_matches WHERE season_id = ?", (first.id,))
    assert matches and owned == matches
    boards = Reads(store).leaderboards()
    assert {b.game: b.matches for b in boards if b.matches} == rated
    assert {b.season for b in boards} == {"season-1"}
    for game, count in rated.items():
        assert len(store.ratings.rated_placings(game)) == count
    store.close()


def test_a_new_store_starts_in_its_first_season(db_url: str, tmp_path: Path) -> None:
    store = Store.open(db_url, tmp_path)
    season = store.seasons.current()
    assert season.name == "season-1" and season.started_at > 0
    store.close()


def test_starting_a_season_freezes_the_standings_exactly_as_they_were(played: Store) -> None:
    before = Reads(played).leaderboards()
    assert before[0].matches == 4 and before[0].rows[0].bot.games > 0
    seasons.start(played, "spring")
    assert Reads(played).leaderboards(season_name="season-1") == before


def test_a_new_season_starts_every_rating_over(played: Store) -> None:
    seasons.start(played, "spring")
    (board,) = Reads(played).leaderboards()
    assert board.season == "spring" and board.matches == 0
    assert {r.bot.name for r in board.rows} == set(BUILTINS)  # bots stay submitted
    for row in board.rows:
        assert math.isinf(row.ci95) and row.elo == elo.BASE
        assert (row.bot.elo, row.bot.games, row.bot.wins) == (elo.BASE, 0, 0)


def test_the_new_season_plays_on_and_the_old_standings_stay_frozen(
    played: Store, url: str, tmp_path: Path
) -> None:
    before = Reads(played).leaderboards()
    seasons.start(played, "spring")
    play(url, tmp_path, 3)
    (board,) = Reads(played).leaderboards()
    assert board.matches == 3 and sum(r.bot.games for r in board.rows) == 6
    assert Reads(played).leaderboards(season_name="season-1") == before
    # replays of both seasons are kept and served
    assert Reads(played).replay(1).content and Reads(played).replay(7).content


def test_a_rated_match_still_queued_at_the_start_is_never_played(played: Store) -> None:
    a, b = (bot.id for bot in played.bots.bots("blossom"))
    match_id = played.matches.queue_match("blossom", "blossom@1", [a, b], seed=5)
    seasons.start(played, "spring")
    match = played.matches.match(match_id)
    assert match.state == FAILED and match.error == seasons.ENDED_UNPLAYED


def test_a_match_running_at_the_start_is_recorded_without_rating_anyone(
    played: Store,
) -> None:
    a, b = (bot.id for bot in played.bots.bots("blossom"))
    match_id = played.matches.queue_match("blossom", "blossom@1", [a, b], seed=5)
    claimed = played.matches.claim_next()
    assert claimed is not None and claimed.id == match_id
    frozen = Reads(played).leaderboards()
    seasons.start(played, "spring")
    results = (SeatResult(0, a, 0, 1.0, "ok"), SeatResult(1, b, 1, 0.0, "ok"))
    assert played.matches.finish_match(match_id, Finished(results, 10, 1.0, "ab" * 32))
    assert played.matches.match(match_id).state == DONE
    (board,) = Reads(played).leaderboards()
    assert board.matches == 0 and all(r.bot.games == 0 for r in board.rows)
    assert Reads(played).leaderboards(season_name="season-1") == frozen


def test_a_season_limited_to_one_game_schedules_only_it(
    played: Store, url: str, tmp_path: Path
) -> None:
    for name in BUILTINS:
        submission.builtin_bot(played, name, "sakura", ACTIVE)
    seasons.start(played, "sakura-only", games=["sakura"])
    last = max(m.id for m in played.matches.matches(limit=100))
    play(url, tmp_path, 3, games=("blossom", "sakura"))
    new = [m for m in played.matches.matches(limit=100) if m.id > last]
    assert len(new) == 3 and {m.game for m in new} == {"sakura"}


def test_the_season_time_control_is_the_one_its_matches_are_played_at(
    played: Store, url: str, tmp_path: Path
) -> None:
    seasons.start(played, "blitz", time_control="250ms+2s")
    play(url, tmp_path, 1, time_control="1s+30s")
    (match,) = played.matches.matches(state=DONE, limit=1)
    header = json.loads(played.files.replay_path(match.id).read_text().splitlines()[0])
    assert header["time_control"] == {"per_decision_ms": 250, "bank_ms": 2000}
    assert played.seasons.current().time_control == "250ms+2s"


@pytest.mark.parametrize(
    ("name", "games", "time_control", "cause"),
    [
        ("Spring 2027", (), "", "lowercase ASCII letters"),
        ("season-1", (), "", "exists already"),
        ("spring", ("chess",), "", "no game 'chess'"),
        ("spring", (), "fast", "bad time control 'fast'"),
    ],
)
def test_a_season_start_the_ladder_cannot_take_is_refused_changing_nothing(
    played: Store, name: str, games: tuple[str, ...], time_control: str, cause: str
) -> None:
    before = Reads(played).leaderboards()
    with pytest.raises(StoreError, match=cause):
        seasons.start(played, name, games, time_control)
    assert Reads(played).leaderboards() == before
    assert [s.name for s in played.seasons.seasons(10)] == ["season-1"]


def test_an_unknown_season_is_not_found(played: Store) -> None:
    with pytest.raises(NotFound, match="no season 'winter'"):
        Reads(played).leaderboards(season_name="winter")
