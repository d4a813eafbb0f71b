"""Seasons: which season is current, what it allows, and the frozen standings of
the ended ones (schema 8). Starting a season is :func:`niwa.ladder.seasons.start`."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from niwa.ladder import elo
from niwa.ladder.db import Row
from niwa.ladder.store import tables
from niwa.ladder.store.base import FAILED, QUEUED, RATED, Part, StoreError

#: Season names: lowercase ASCII, so one reads the same in a URL, a shell and a page.
SEASON_NAME_CHARS = 32
_SEASON_NAME = re.compile(rf"[a-z0-9][a-z0-9_.-]{{0,{SEASON_NAME_CHARS - 1}}}")
#: What a queued rated match of an ended season becomes: never played under the new
#: season's rules, never rated in the old one's frozen standings.
ENDED_UNPLAYED = "its season ended before it was played"


def season_name_problem(name: str) -> str:
    """Why ``name`` cannot name a new season ("" if it can)."""
    if _SEASON_NAME.fullmatch(name):
        return ""
    return (
        f"season name {name[:80]!r}: use 1-{SEASON_NAME_CHARS} lowercase ASCII letters, "
        "digits, '.', '-' and '_', starting with a letter or digit (e.g. 2027-spring)"
    )


@dataclass(frozen=True)
class Season:
    id: int
    name: str
    started_at: float
    ended_at: float | None  # None: the current season
    games: tuple[str, ...]  # the games it plays; empty: every game of the ladder
    time_control: str  # "": the runner's --time-control

    @property
    def current(self) -> bool:
        return self.ended_at is None


@dataclass(frozen=True)
class Standing:
    """One leaderboard row as it stood when its season ended."""

    game: str
    rank: int
    bot_id: int
    elo: float  # the leaderboard's fit
    ci95: float  # inf: not rated
    running_elo: float
    games: int
    wins: int
    status: str
    provisional: bool = False  # matchmaking was still placing it (niwa.ladder.skill)
    #: Plackett-Luce: (players, Elo, ci95) fitted on that many seats' matches alone.
    by_players: tuple[tuple[int, float, float], ...] = ()


@dataclass(frozen=True)
class FrozenBoard:
    """A game's leaderboard as it stood when its season ended."""

    game: str
    matches: int
    rows: Sequence[Standing]
    rating: str = ""  # the model that made it: "plackett-luce" or "pairwise"
    #: Plackett-Luce: (players, seat, Elo against seat 0, ci95) per seat effect.
    seat_effects: Sequence[tuple[int, int, float, float]] = ()


class Seasons(Part):
    """The seasons' rows; exactly one has no end: the current one."""

    def current(self) -> Season:
        row = self.db.one("SELECT * FROM seasons WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1")
        if row is None:  # migration 7 makes one and start() always leaves one
            raise StoreError("the store has no current season: run niwa ladder migrate")
        return _season(row)

    def named(self, name: str) -> Season | None:
        row = self.db.one("SELECT * FROM seasons WHERE name = ?", (name,))
        return None if row is None else _season(row)

    def seasons(self, limit: int) -> list[Season]:
        """The newest ``limit`` seasons, newest first."""
        rows = self.db.execute("SELECT * FROM seasons ORDER BY id DESC LIMIT ?", (limit,))
        return [_season(r) for r in rows]

    def boards(self, season_id: int) -> list[FrozenBoard]:
        """An ended season's boards, A to Z, each with its rows."""
        rows = self.db.execute(
            "SELECT game, matches, rating FROM season_boards WHERE season_id = ? ORDER BY game",
            (season_id,),
        )
        effects: dict[str, list[tuple[int, int, float, float]]] = {}
        for r in self.db.execute(
            "SELECT game, players, seat, elo, ci95 FROM season_seat_effects "
            "WHERE season_id = ? ORDER BY game, players, seat",
            (season_id,),
        ):
            effects.setdefault(str(r["game"]), []).append(
                (int(r["players"]), int(r["seat"]), float(r["elo"]), float(r["ci95"])))
        return [
            FrozenBoard(
                str(r["game"]), int(r["matches"]), self.standings(season_id, str(r["game"])),
                str(r["rating"]), tuple(effects.get(str(r["game"]), ())),
            )
            for r in rows
        ]  # fmt: skip

    def standings(self, season_id: int, game: str) -> list[Standing]:
        rows = self.db.execute(
            "SELECT * FROM season_standings WHERE season_id = ? AND game = ? ORDER BY rank",
            (season_id, game),
        )
        counts: dict[int, list[tuple[int, float, float]]] = {}
        for r in self.db.execute(
            "SELECT bot_id, players, elo, ci95 FROM season_player_counts "
            "WHERE season_id = ? AND game = ? ORDER BY bot_id, players",
            (season_id, game),
        ):
            counts.setdefault(int(r["bot_id"]), []).append(
                (int(r["players"]), float(r["elo"]), float(r["ci95"])))
        return [
            Standing(
                game=str(r["game"]), rank=int(r["rank"]), bot_id=int(r["bot_id"]),
                elo=float(r["elo"]), ci95=float(r["ci95"]), running_elo=float(r["running_elo"]),
                games=int(r["games"]), wins=int(r["wins"]), status=str(r["status"]),
                provisional=bool(r["provisional"]),
                by_players=tuple(counts.get(int(r["bot_id"]), ())),
            )
            for r in rows
        ]  # fmt: skip

    def close_and_open(
        self,
        ended: Season,
        boards: Sequence[FrozenBoard],
        name: str,
        games: Sequence[str],
        time_control: str,
    ) -> Season:
        """End ``ended`` with its ``boards`` (game, rated matches, rows) frozen, open
        season ``name`` and start the ratings over. Inside the caller's transaction,
        which holds the commit lock (no match is rated meanwhile)."""
        now = time.time()
        # every match so far is the ended season's, those queued by an older node too
        self.db.execute(
            "INSERT INTO season_matches (match_id, season_id) SELECT m.id, ? FROM matches m "
            "WHERE NOT EXISTS (SELECT 1 FROM season_matches sm WHERE sm.match_id = m.id)",
            (ended.id,),
        )
        self.db.execute("UPDATE seasons SET ended_at = ? WHERE id = ?", (now, ended.id))
        # leagues belong to the current configuration: a new season starts everyone low
        self.db.execute("DELETE FROM league_members")
        self.db.execute_many(
            "INSERT INTO season_boards (season_id, game, matches, rating) VALUES (?, ?, ?, ?)",
            [(ended.id, b.game, b.matches, b.rating) for b in boards],
        )
        self.db.execute_many(
            "INSERT INTO season_seat_effects (season_id, game, players, seat, elo, ci95) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(ended.id, b.game, *effect) for b in boards for effect in b.seat_effects],
        )
        self.db.execute_many(
            "INSERT INTO season_player_counts (season_id, game, bot_id, players, elo, ci95) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(ended.id, b.game, s.bot_id, *count)
             for b in boards for s in b.rows for count in s.by_players],
        )
        self.db.execute_many(
            "INSERT INTO season_standings (season_id, game, rank, bot_id, elo, ci95,"
            " running_elo, games, wins, status, provisional)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (ended.id, s.game, s.rank, s.bot_id, s.elo, s.ci95, s.running_elo, s.games,
                 s.wins, s.status, int(s.provisional))
                for b in boards for s in b.rows
            ],
        )  # fmt: skip
        row = self.db.one(
            "INSERT INTO seasons (name, started_at, games, time_control) VALUES (?, ?, ?, ?) "
            "RETURNING *",
            (name, now, json.dumps(list(games)) if games else "", time_control),
        )
        assert row is not None
        # The totals are the current season's: they start from nothing, as the ratings do.
        self.db.execute("UPDATE ratings SET elo = ?, games = 0, wins = 0", (elo.BASE,))
        self.db.execute("DELETE FROM pair_totals")
        tables.clear(self.db)
        self.db.execute("DELETE FROM rated_totals")
        self.db.execute("DELETE FROM skills")  # every bot provisional again, as new
        self.db.execute(
            "UPDATE matches SET state = ?, error = ?, finished_at = ? WHERE state = ? "
            "AND kind = ?",
            (FAILED, ENDED_UNPLAYED, now, QUEUED, RATED),
        )
        return _season(row)


def _season(row: Row) -> Season:
    games = str(row["games"])
    ended = row["ended_at"]
    return Season(
        id=int(row["id"]),
        name=str(row["name"]),
        started_at=float(row["started_at"]),
        ended_at=None if ended is None else float(ended),
        games=tuple(json.loads(games)) if games else (),
        time_control=str(row["time_control"]),
    )
