"""The ladder's store: owners, bots, matches, results and ratings, over :mod:`ladder.db`.

Each node keeps its working files in its data folder, named by id or content hash::

    DATA/ladder.db          (SQLite; on PostgreSQL the database is elsewhere)
    DATA/archives/<sha256>.tar.gz   DATA/bots/<sha256>/   submitted bots, unpacked once
    DATA/replays/<match>.jsonl      DATA/logs/<match>/    one per match
    DATA/replays/<match>.attempt<n>.jsonl   an attempt's replay until it is recorded

and the store keeps what every node must reach (schema 5): each replay and each
archive as a compressed blob, so a node without the file reads it from the store.

Crash safety rests on two rules: a match changes state only inside a transaction
(queued -> running when claimed; running -> done with its results, its replay (hash
and content) and the rating update all at once), and the replay's content commits with
it, so a committed match always has its replay. The runner renames the recorded
attempt's file to ``<match>.jsonl`` after the commit: a file there is always the one
whose hash was recorded (a node that died in between serves the store's copy).

The store is split by concern, each part a small class on the one shared connection:
:attr:`Store.owners`, :attr:`Store.bots`, :attr:`Store.matches` (and the queue),
:attr:`Store.ratings` (and the leaderboard's fit), :attr:`Store.balance` (each game's
balance figures), :attr:`Store.seasons`,
:attr:`Store.files` (paths and blobs), :attr:`Store.settings`, :attr:`Store.sessions`
(owners signed in on the web), :attr:`Store.leagues` and :attr:`Store.forks` (where
each forked match starts).
"""

from __future__ import annotations

from pathlib import Path

from niwa.ladder.db import Database, DatabaseError, is_postgres_url, sqlite_path
from niwa.ladder.records import OLD_STDERR, Bot, Finished, Match, Owner, SeatResult
from niwa.ladder.schema import migrate
from niwa.ladder.store.balance import Balance
from niwa.ladder.store.base import (
    ACTIVE,
    CHALLENGE,
    DONE,
    FAILED,
    FORKED,
    HUMAN_SOURCE,
    PENDING,
    QUEUED,
    RATED,
    REJECTED,
    RESERVE,
    RETIRED,
    RUNNING,
    SUPERSEDED,
    SUSPENDED,
    SYSTEM_OWNER,
    VALIDATION,
    StoreError,
)
from niwa.ladder.store.bots import Bots
from niwa.ladder.store.files import Files
from niwa.ladder.store.forks import Fork, Forks
from niwa.ladder.store.leagues import League, Leagues, LeagueSetup
from niwa.ladder.store.matches import Matches
from niwa.ladder.store.owners import OWNER_NAME_CHARS, Owners, is_reserved, owner_name_problem
from niwa.ladder.store.ratings import Ratings
from niwa.ladder.store.seasons import FrozenBoard, Season, Seasons, Standing
from niwa.ladder.store.sessions import Sessions
from niwa.ladder.store.settings import Settings

__all__ = [
    "ACTIVE", "CHALLENGE", "DONE", "FAILED", "FORKED", "HUMAN_SOURCE", "OLD_STDERR",
    "OWNER_NAME_CHARS", "PENDING", "QUEUED",
    "RATED", "REJECTED", "RESERVE", "RETIRED", "RUNNING", "SUPERSEDED", "SUSPENDED",
    "SYSTEM_OWNER", "VALIDATION", "Bot", "Finished", "Fork", "FrozenBoard", "League",
    "LeagueSetup", "Match", "Owner", "Season", "SeatResult",
    "Standing", "Store", "StoreError", "is_reserved", "owner_name_problem",
]  # fmt: skip


class Store:
    """One connection to the store plus the folder of its files, and its parts."""

    def __init__(self, db: Database, data_dir: Path, identity: str = "") -> None:
        """``identity``: the store's URL, which lets every Store of this process on it
        share one kept Plackett-Luce fit per game (:meth:`Ratings.pl_standing`); ""
        keeps this Store's own."""
        self.db = db
        self.data_dir = data_dir
        self.files = Files(db, data_dir)
        self.settings = Settings(db)
        self.owners = Owners(db)
        self.bots = Bots(db)
        self.ratings = Ratings(db, identity)
        self.seasons = Seasons(db)
        self.balance = Balance(db)
        self.matches = Matches(db, self.files, self.ratings, self.balance)
        self.sessions = Sessions(db)
        self.leagues = Leagues(db)
        self.forks = Forks(db, self.matches)

    @classmethod
    def open(
        cls, url: str, data_dir: Path | None = None, create: bool = True, reconnect: bool = False
    ) -> Store:
        """Open (creating, unless ``create`` is false, and migrating) the store at ``url``;
        ``reconnect``: a reader's store, which survives the server's restarts
        (:meth:`Database.open`)."""
        if not create and not is_postgres_url(url) and not sqlite_path(url).is_file():
            raise DatabaseError(
                f"no ladder store at {sqlite_path(url)}: give the right --db, or make one "
                "with niwa ladder serve or niwa ladder demo"
            )
        if data_dir is None:
            if is_postgres_url(url):
                raise DatabaseError("a PostgreSQL store needs --data DIR for replays and bots")
            data_dir = sqlite_path(url).parent
        data_dir.mkdir(parents=True, exist_ok=True)
        db = Database.open(url, reconnect=reconnect)
        migrate(db)
        return cls(db, data_dir, url)

    def close(self) -> None:
        self.db.close()
