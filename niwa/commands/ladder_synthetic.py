"""A ladder store filled with synthetic finished matches, in the real schema.

Written as schema 3 (the last one before the store kept totals), so that opening it
with this niwa runs the migration that fills them, and an older niwa can open it as
it is: one store for a before/after comparison. The rows are what the runner would
write: ``bots`` active bots of one game with ratings, ``matches`` finished rated
matches of 2 to the game's most seats whose players sit near each other in strength
(as the scheduler pairs bots near in rating), places from strength plus noise, and a
few matches queued for the claim timings.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

from niwa import engine
from niwa.ladder.schema import MIGRATIONS
from niwa.ladder.statuses import BotStatus, MatchKind, MatchState
from niwa.referee.failures import SeatStatus

#: The schema an older niwa reads (before the totals of schema 4).
SCHEMA = 3
QUEUED = 200


def fill(path: Path, game: str, matches: int, bots: int, seed: int = 0) -> None:
    info = engine.load(game).info
    rng = random.Random(seed)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
    for version, statements in enumerate(MIGRATIONS[:SCHEMA], start=1):
        for statement in statements:
            conn.execute(statement.replace("{id}", "INTEGER PRIMARY KEY"))
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
    now = time.time()
    conn.execute(
        "INSERT INTO owners (id, name, token_hash, is_admin, created_at) VALUES (1, ?, ?, 0, ?)",
        ("synthetic", "x" * 64, now),
    )
    conn.executemany(
        "INSERT INTO bots (id, name, version, game, owner_id, source, archive_hash, status,"
        f" created_at) VALUES (?, ?, '1', ?, 1, 'builtin:random', NULL, '{BotStatus.ACTIVE}', ?)",
        [(i, f"bot{i}", game, now) for i in range(1, bots + 1)],
    )
    low, high = max(info.min_players, 2), min(info.max_players, bots)
    window = 2 * (high - 1)  # the scheduler's opponents: twice as many as seats, nearest
    seats: list[tuple[int, int, int]] = []
    results: list[tuple[object, ...]] = []
    games = [0] * (bots + 1)
    wins = [0] * (bots + 1)
    rows: list[tuple[object, ...]] = []
    for match in range(1, matches + QUEUED + 1):
        players = rng.randint(low, high)
        first = rng.randint(1, bots)
        near = [b for b in range(first - window, first + window + 1) if 1 <= b <= bots]
        near.remove(first)
        seated = [first, *rng.sample(near, players - 1)]
        rng.shuffle(seated)
        done = match <= matches
        rows.append((
            match, game, info.version, MatchKind.RATED, rng.getrandbits(62), "{}", players,
            MatchState.DONE if done else MatchState.QUEUED, int(done), now, now if done else None,
            now if done else None, 0.1 if done else None, 40 if done else None,
            "0" * 64 if done else None, match if done else None,
        ))  # fmt: skip
        seats.extend((match, seat, bot) for seat, bot in enumerate(seated))
        if done:
            strength = {bot: bot + rng.gauss(0, window) for bot in seated}
            order = sorted(seated, key=strength.__getitem__, reverse=True)
            for seat, bot in enumerate(seated):
                place = order.index(bot)
                results.append((match, seat, bot, place, float(-place), str(SeatStatus.OK), "",
                                None, "", json.dumps([])))
                games[bot] += 1
                wins[bot] += place == 0
    conn.executemany(
        "INSERT INTO matches (id, game, game_version, kind, seed, options, players, state,"
        " attempts, created_at, started_at, finished_at, wall_s, decisions, replay_sha256,"
        " seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany("INSERT INTO match_seats (match_id, seat, bot_id) VALUES (?, ?, ?)", seats)
    conn.executemany(
        "INSERT INTO results (match_id, seat, bot_id, place, score, status, reason, out_step,"
        " detail, stderr_tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        results,
    )
    conn.executemany(
        "INSERT INTO ratings (bot_id, game, elo, games, wins) VALUES (?, ?, ?, ?, ?)",
        [(b, game, 1500.0 + (b - bots / 2) * 0.5, games[b], wins[b]) for b in range(1, bots + 1)],
    )
    conn.execute("COMMIT")
    conn.close()
