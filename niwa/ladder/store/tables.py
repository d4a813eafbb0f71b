"""Per-seat and per-table totals (schema 12): each bot's rated results by player count
and seat, and each pair of bots that shared a table, kept up to date by the
transaction that commits a rated match, so that a bot page reads a few indexed rows
however many matches the bot played; and the bounded read the kingmaker check needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from niwa.ladder.db import Database
from niwa.ladder.records import SeatResult
from niwa.ladder.store.base import DONE, RATED

#: The match m is of the current season (as niwa.ladder.store.ratings.IN_SEASON says),
#: asked per match through season_matches' key: a bot's few thousand matches, rather
#: than a list of every match of the ended seasons built for each read.
IN_SEASON = (
    "NOT EXISTS (SELECT 1 FROM season_matches sm JOIN seasons s ON s.id = sm.season_id "
    "WHERE sm.match_id = m.id AND s.ended_at IS NOT NULL)"
)


@dataclass(frozen=True)
class SeatRow:
    """A bot's rated matches at one seat of one player count (places from 0)."""

    players: int
    seat: int
    matches: int
    place_sum: int
    place_squares: int
    firsts: int


@dataclass(frozen=True)
class TablePair:
    """A bot and one opponent in the rated matches they shared: how often the bot
    finished ahead, level (the rest: behind)."""

    other_id: int
    together: int
    ahead: int
    level: int


def record(db: Database, results: Sequence[SeatResult]) -> None:
    """Add one rated match to the totals (inside the transaction that commits it)."""
    players = len(results)
    db.execute_many(
        "INSERT INTO seat_results (bot_id, players, seat, matches, place_sum, place_squares,"
        " firsts) VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (bot_id, players, seat) DO UPDATE "
        "SET matches = seat_results.matches + 1, place_sum = seat_results.place_sum + ?, "
        "place_squares = seat_results.place_squares + ?, firsts = seat_results.firsts + ?",
        [
            (r.bot_id, players, r.seat, r.place, r.place**2, int(r.place == 0),
             r.place, r.place**2, int(r.place == 0))
            for r in results
        ],
    )  # fmt: skip
    pairs = [
        (a.bot_id, b.bot_id, int(a.place < b.place), int(a.place == b.place))
        for a in results for b in results
        if a.seat != b.seat and a.bot_id != b.bot_id
    ]  # fmt: skip
    db.execute_many(
        "INSERT INTO table_pairs (bot_id, other_id, together, ahead, level) "
        "VALUES (?, ?, 1, ?, ?) ON CONFLICT (bot_id, other_id) DO UPDATE SET "
        "together = table_pairs.together + 1, ahead = table_pairs.ahead + ?, "
        "level = table_pairs.level + ?",
        [(a, b, ahead, level, ahead, level) for a, b, ahead, level in pairs],
    )


def clear(db: Database) -> None:
    """A new season's totals start from nothing, as its ratings do."""
    db.execute("DELETE FROM seat_results")
    db.execute("DELETE FROM table_pairs")


def seat_rows(db: Database, bot_id: int) -> list[SeatRow]:
    """The bot's rows, by player count then seat (at most 8 x 8 of them)."""
    found = db.execute(
        "SELECT players, seat, matches, place_sum, place_squares, firsts FROM seat_results "
        "WHERE bot_id = ? ORDER BY players, seat",
        (bot_id,),
    )
    return [SeatRow(**{k: int(v) for k, v in r.items()}) for r in found]


def table_pairs(db: Database, bot_id: int, limit: int) -> list[TablePair]:
    """The ``limit`` opponents the bot shared most tables with, most first."""
    found = db.execute(
        "SELECT other_id, together, ahead, level FROM table_pairs WHERE bot_id = ? "
        "ORDER BY together DESC, other_id LIMIT ?",
        (bot_id, limit),
    )
    return [TablePair(**{k: int(v) for k, v in r.items()}) for r in found]


def shared_tables(
    db: Database, bot_id: int, limit: int, min_seats: int = 3
) -> list[list[tuple[int, int]]]:
    """The bot's newest ``limit`` rated matches of the current season with at least
    ``min_seats`` seats, each as (bot, place) per seat: what the kingmaker check reads."""
    found = db.execute(
        "SELECT r.match_id, r.bot_id, r.place FROM results r WHERE r.match_id IN ("
        "SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id "
        f"WHERE s.bot_id = ? AND m.kind = ? AND m.state = ? AND m.players >= ? AND {IN_SEASON} "
        "ORDER BY s.match_id DESC LIMIT ?) ORDER BY r.match_id, r.seat",
        (bot_id, RATED, DONE, min_seats, limit),
    )
    matches: dict[int, list[tuple[int, int]]] = {}
    for r in found:
        matches.setdefault(int(r["match_id"]), []).append((int(r["bot_id"]), int(r["place"])))
    return list(matches.values())
