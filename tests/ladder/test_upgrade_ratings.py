"""Schema 10 (Plackett-Luce on the leaderboard) on both engines: a store whose season
ended under the pairwise fit upgrades in place, its frozen board read as it was and
named pairwise; a season ended after the upgrade keeps its model, seat effects and
per-player-count ratings."""

from __future__ import annotations

import time
from pathlib import Path

from niwa.ladder import schema, seasons
from niwa.ladder.db import Database
from niwa.ladder.reads import Reads
from niwa.ladder.store import ACTIVE, Store
from niwa.ladder.store.ratings import PAIRWISE, PLACKETT_LUCE
from tests.ladder.test_kept_pl import seat_ladder

#: The migration this change adds (the last one; renumbered if others land first).
RATINGS_SCHEMA = schema.LATEST


def schema_9_store_with_an_ended_season(url: str) -> None:
    """A store at the schema before this one: bob's two bots, season-1 ended with its
    board frozen (3 rated matches, two rows), season-2 current."""
    db = Database.open(url)
    schema.migrate(db, target=RATINGS_SCHEMA - 1)
    now = time.time()
    with db.transaction():
        db.execute("INSERT INTO owners (name, token_hash, is_admin, created_at) "
                   "VALUES ('bob', ?, 0, ?)", ("x" * 64, now))  # fmt: skip
        for name in ("elm", "fir"):
            db.execute(
                "INSERT INTO bots (name, version, game, owner_id, source, archive_hash, "
                "status, created_at) SELECT ?, '1', 'blossom', id, 'archive', NULL, ?, ? "
                "FROM owners WHERE name = 'bob'",
                (name, ACTIVE, now),
            )
        db.execute("UPDATE seasons SET ended_at = ? WHERE name = 'season-1'", (now,))
        db.execute("INSERT INTO seasons (name, started_at) VALUES ('season-2', ?)", (now,))
        db.execute("INSERT INTO season_boards (season_id, game, matches) "
                   "SELECT id, 'blossom', 3 FROM seasons WHERE name = 'season-1'")  # fmt: skip
        for rank, name, rating in ((1, "fir", 1560.5), (2, "elm", 1439.5)):
            db.execute(
                "INSERT INTO season_standings (season_id, game, rank, bot_id, elo, ci95, "
                "running_elo, games, wins, status) SELECT s.id, 'blossom', ?, b.id, ?, "
                "210.0, 1500.0, 3, ?, ? FROM seasons s, bots b "
                "WHERE s.name = 'season-1' AND b.name = ?",
                (rank, rating, 2 if rank == 1 else 1, ACTIVE, name),
            )
    db.close()


def test_a_season_frozen_by_the_pairwise_fit_reads_as_it_was_after_the_upgrade(
    db_url: str, tmp_path: Path
) -> None:
    schema_9_store_with_an_ended_season(db_url)
    store = Store.open(db_url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    (board,) = Reads(store).leaderboards("blossom", "season-1")
    assert board.rating == PAIRWISE and board.seat_effects == ()
    assert board.matches == 3
    assert [(r.rank, r.bot.name, r.elo, r.ci95, r.by_players) for r in board.rows] == [
        (1, "fir", 1560.5, 210.0, ()), (2, "elm", 1439.5, 210.0, ()),
    ]
    store.close()


def test_a_season_ended_after_the_upgrade_keeps_seat_effects_and_player_counts(
    db_url: str, tmp_path: Path
) -> None:
    schema_9_store_with_an_ended_season(db_url)
    store = Store.open(db_url, tmp_path)
    store.ratings.refit_in_thread = False
    seat_ladder(store, seed=11)
    (live,) = Reads(store).leaderboards("blossom")
    assert live.rating == PLACKETT_LUCE and live.seat_effects
    assert all(row.by_players for row in live.rows if row.bot.games)
    seasons.start(store, "spring")
    (frozen,) = Reads(store).leaderboards("blossom", live.season)
    assert frozen == live
    store.close()
