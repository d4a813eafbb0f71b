"""The versioned schema: each migration is a list of portable statements, applied once.

A store records the highest version applied in ``schema_version``; opening a store
applies the missing migrations in one transaction each. Never edit a released
migration: add the next one.
"""

from __future__ import annotations

from niwa.ladder.db import Database, DatabaseError
from niwa.ladder.statuses import MatchKind, MatchState

#: A match of the current season (as niwa.ladder.store.ratings.IN_SEASON), spelled here
#: so that a migration stays as it was released whatever that module becomes.
_IN_SEASON = (
    "m.id NOT IN (SELECT sm.match_id FROM season_matches sm "
    "JOIN seasons s ON s.id = sm.season_id WHERE s.ended_at IS NOT NULL)"
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: owners, bots, matches with their seats and results, ratings and their history.
    (
        """CREATE TABLE owners (
            id {id},
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            is_admin INTEGER NOT NULL DEFAULT 0,
            created_at DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE bots (
            id {id},
            name TEXT NOT NULL,
            version TEXT NOT NULL,
            game TEXT NOT NULL,
            owner_id BIGINT NOT NULL REFERENCES owners(id),
            source TEXT NOT NULL,
            archive_hash TEXT,
            status TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            created_at DOUBLE PRECISION NOT NULL,
            UNIQUE (name, version, game)
        )""",
        """CREATE TABLE matches (
            id {id},
            game TEXT NOT NULL,
            game_version TEXT NOT NULL,
            kind TEXT NOT NULL,
            seed BIGINT NOT NULL,
            options TEXT NOT NULL,
            players INTEGER NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            duplicate_group BIGINT,
            created_at DOUBLE PRECISION NOT NULL,
            started_at DOUBLE PRECISION,
            finished_at DOUBLE PRECISION,
            wall_s DOUBLE PRECISION,
            decisions INTEGER,
            error TEXT NOT NULL DEFAULT '',
            replay_sha256 TEXT,
            seq BIGINT UNIQUE
        )""",
        "CREATE INDEX matches_state ON matches (state, id)",
        "CREATE INDEX matches_game_seq ON matches (game, seq)",
        """CREATE TABLE match_seats (
            match_id BIGINT NOT NULL REFERENCES matches(id),
            seat INTEGER NOT NULL,
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            PRIMARY KEY (match_id, seat)
        )""",
        "CREATE INDEX match_seats_bot ON match_seats (bot_id)",
        """CREATE TABLE results (
            match_id BIGINT NOT NULL REFERENCES matches(id),
            seat INTEGER NOT NULL,
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            place INTEGER NOT NULL,
            score DOUBLE PRECISION NOT NULL,
            status TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (match_id, seat)
        )""",
        """CREATE TABLE ratings (
            bot_id BIGINT PRIMARY KEY REFERENCES bots(id),
            game TEXT NOT NULL,
            elo DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE rating_history (
            match_id BIGINT NOT NULL REFERENCES matches(id),
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            elo_before DOUBLE PRECISION NOT NULL,
            elo_after DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (match_id, bot_id)
        )""",
    ),
    # 2: ladder settings the admin may change (upload quotas).
    (
        """CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )""",
    ),
    # 3: why a seat went out, apart: the step, the referee's detail line, and the bot's
    # stderr tail (JSON list), which only its owner may read (never in the public replay).
    (
        "ALTER TABLE results ADD COLUMN out_step INTEGER",
        "ALTER TABLE results ADD COLUMN detail TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE results ADD COLUMN stderr_tail TEXT NOT NULL DEFAULT '[]'",
    ),
    # 4: totals kept up to date by the transactions that queue and commit matches, so
    # the scheduler and the leaderboard never rescan every match: each bot's seat counts,
    # the rated pairwise games of every ordered pair of bots (weighted 1/(n-1) per
    # n-seat match, as in niwa.ladder.elo) and the count of rated matches per game; indexes
    # for the newest duplicate group and for a game's unfinished matches. Filled here
    # from the matches already played.
    (
        """CREATE TABLE seat_totals (
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            seat INTEGER NOT NULL,
            matches BIGINT NOT NULL,
            PRIMARY KEY (bot_id, seat)
        )""",
        """CREATE TABLE pair_totals (
            game TEXT NOT NULL,
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            other_id BIGINT NOT NULL REFERENCES bots(id),
            meetings BIGINT NOT NULL,
            games DOUBLE PRECISION NOT NULL,
            score DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game, bot_id, other_id)
        )""",
        """CREATE TABLE rated_totals (
            game TEXT PRIMARY KEY,
            matches BIGINT NOT NULL
        )""",
        "CREATE INDEX matches_duplicate_group ON matches (duplicate_group)",
        # a game's queued and running matches without walking all its finished ones
        "CREATE INDEX matches_state_game ON matches (state, game)",
        """INSERT INTO seat_totals (bot_id, seat, matches)
            SELECT bot_id, seat, COUNT(*) FROM match_seats GROUP BY bot_id, seat""",
        f"""INSERT INTO rated_totals (game, matches)
            SELECT game, COUNT(*) FROM matches
            WHERE kind = '{MatchKind.RATED}' AND state = '{MatchState.DONE}' GROUP BY game""",
        f"""INSERT INTO pair_totals (game, bot_id, other_id, meetings, games, score)
            SELECT m.game, a.bot_id, b.bot_id, COUNT(*),
                SUM(1.0 / (c.seats - 1)),
                SUM(CASE WHEN a.place < b.place THEN 1.0 WHEN a.place = b.place THEN 0.5
                    ELSE 0.0 END / (c.seats - 1))
            FROM matches m
            JOIN (SELECT match_id, COUNT(*) AS seats FROM results GROUP BY match_id) c
                ON c.match_id = m.id
            JOIN results a ON a.match_id = m.id
            JOIN results b ON b.match_id = m.id AND b.seat <> a.seat AND b.bot_id <> a.bot_id
            WHERE m.kind = '{MatchKind.RATED}' AND m.state = '{MatchState.DONE}'
            GROUP BY m.game, a.bot_id, b.bot_id""",
    ),
    # 5: a ladder on several machines. Leases: who may run the matches (one holder per
    # name, until its heartbeat stops). Blobs: the files every node must reach (each
    # finished match's replay, each submitted bot's archive), zlib-compressed and
    # named by the SHA-256 of their content; the files on disk are the node's copies.
    (
        """CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            acquired_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE blobs (
            sha256 TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            size BIGINT NOT NULL,
            data {blob} NOT NULL
        )""",
    ),
    # 6: every seat's stderr tail kept for its owner a while (niwa.ladder.tails): which
    # matches kept the tails of the seats that stayed in too (every_seat; before, only
    # of seats that went out), and when housekeeping removed them (NULL: not yet). A
    # table of its own: the rows of matches and results stay as they were.
    (
        """CREATE TABLE stderr_kept (
            match_id BIGINT PRIMARY KEY REFERENCES matches(id),
            every_seat INTEGER NOT NULL,
            removed_at DOUBLE PRECISION
        )""",
    ),
    # 7: owners signed in on the web pages (niwa.web.signin): each session by the SHA-256
    # of its cookie (never the cookie itself), its owner and when it ends; kept in the
    # store so that every web process serving it knows them, and a restart keeps them.
    (
        """CREATE TABLE web_sessions (
            session_hash TEXT PRIMARY KEY,
            owner_id BIGINT NOT NULL REFERENCES owners(id),
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX web_sessions_owner ON web_sessions (owner_id, created_at)",
    ),
    # 8: seasons (niwa.ladder.seasons). Each match belongs to the season it was queued in
    # (season_matches: a table of its own, the rows of matches stay as they were); the
    # ratings and rated totals hold the current season's matches only, and an ended
    # season keeps its leaderboards as they stood at its end (season_boards: each game's
    # rated matches; season_standings: its rows). A store from before seasons gets its
    # first season, "season-1", owning every match so far.
    (
        """CREATE TABLE seasons (
            id {id},
            name TEXT NOT NULL UNIQUE,
            started_at DOUBLE PRECISION NOT NULL,
            ended_at DOUBLE PRECISION,
            games TEXT NOT NULL DEFAULT '',
            time_control TEXT NOT NULL DEFAULT ''
        )""",
        """CREATE TABLE season_matches (
            match_id BIGINT PRIMARY KEY REFERENCES matches(id),
            season_id BIGINT NOT NULL REFERENCES seasons(id)
        )""",
        "CREATE INDEX season_matches_season ON season_matches (season_id, match_id)",
        """CREATE TABLE season_boards (
            season_id BIGINT NOT NULL REFERENCES seasons(id),
            game TEXT NOT NULL,
            matches BIGINT NOT NULL,
            PRIMARY KEY (season_id, game)
        )""",
        """CREATE TABLE season_standings (
            season_id BIGINT NOT NULL REFERENCES seasons(id),
            game TEXT NOT NULL,
            rank INTEGER NOT NULL,
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            elo DOUBLE PRECISION NOT NULL,
            ci95 DOUBLE PRECISION NOT NULL,
            running_elo DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            wins INTEGER NOT NULL,
            status TEXT NOT NULL,
            PRIMARY KEY (season_id, game, rank)
        )""",
        # started when the ladder did (its first owner), or now for a new store
        """INSERT INTO seasons (name, started_at)
            SELECT 'season-1', COALESCE(MIN(created_at), {now}) FROM owners""",
        """INSERT INTO season_matches (match_id, season_id)
            SELECT m.id, s.id FROM matches m CROSS JOIN seasons s""",
    ),
    # 9: leagues (niwa.ladder.leagues): a game's divisions, lowest first, each guarded
    # by a boss bot; each bot's league and when it got there
    (
        """CREATE TABLE league_games (
            game TEXT PRIMARY KEY,
            share_above DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE leagues (
            game TEXT NOT NULL,
            rank INTEGER NOT NULL,
            name TEXT NOT NULL,
            boss_bot_id INTEGER NOT NULL REFERENCES bots(id),
            PRIMARY KEY (game, rank)
        )""",
        """CREATE TABLE league_members (
            bot_id INTEGER PRIMARY KEY REFERENCES bots(id),
            game TEXT NOT NULL,
            rank INTEGER NOT NULL,
            since DOUBLE PRECISION NOT NULL
        )""",
    ),
    # 10: forks (niwa.ladder.forks): where each forked match starts (a finished match,
    # its step and the seat whose bot its owner replaced) and who asked for it
    (
        """CREATE TABLE match_forks (
            match_id BIGINT PRIMARY KEY REFERENCES matches(id),
            origin_id BIGINT NOT NULL REFERENCES matches(id),
            step INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            owner_id BIGINT NOT NULL REFERENCES owners(id),
            created_at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX match_forks_owner ON match_forks (owner_id, created_at)",
    ),
    # 11 (balance): each rated match's balance
    # figures (niwa.ladder.balance), their running sums per game, table size, pool
    # ("all" rated matches, or "strong" bots only), seat (-1: a per-match figure) and
    # figure, the rated matches that wait for `niwa ladder balance --backfill` (every
    # one finished before this migration) and those it could not count
    (
        """CREATE TABLE balance_matches (
            match_id INTEGER PRIMARY KEY REFERENCES matches(id),
            game TEXT NOT NULL,
            seats INTEGER NOT NULL,
            strong INTEGER NOT NULL,
            weakest_elo DOUBLE PRECISION NOT NULL,
            steps INTEGER NOT NULL,
            rounds INTEGER NOT NULL,
            lead_changes INTEGER,
            winner_late INTEGER,
            order_late INTEGER,
            margin DOUBLE PRECISION NOT NULL,
            spread DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE balance_totals (
            game TEXT NOT NULL,
            seats INTEGER NOT NULL,
            pool TEXT NOT NULL,
            seat INTEGER NOT NULL,
            metric TEXT NOT NULL,
            count INTEGER NOT NULL,
            total DOUBLE PRECISION NOT NULL,
            squares DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game, seats, pool, seat, metric)
        )""",
        """CREATE TABLE balance_backlog (
            match_id INTEGER PRIMARY KEY REFERENCES matches(id)
        )""",
        """CREATE TABLE balance_skipped (
            match_id INTEGER PRIMARY KEY REFERENCES matches(id),
            reason TEXT NOT NULL
        )""",
        f"""INSERT INTO balance_backlog (match_id)
            SELECT id FROM matches
            WHERE kind = '{MatchKind.RATED}' AND state = '{MatchState.DONE}'""",
    ),
    # 12: per-seat and per-table totals for the bot pages (niwa.ladder.store.tables),
    # kept by the transaction that commits a rated match, of the current season as
    # pair_totals are: each bot's results by player count and seat (matches, the sums
    # of its places and of their squares for a mean with an interval, firsts), and each
    # ordered pair of bots that shared a table (matches together, how often the first
    # finished ahead, level). Filled here from the current season's rated matches.
    (
        """CREATE TABLE seat_results (
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            players INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            matches BIGINT NOT NULL,
            place_sum BIGINT NOT NULL,
            place_squares BIGINT NOT NULL,
            firsts BIGINT NOT NULL,
            PRIMARY KEY (bot_id, players, seat)
        )""",
        """CREATE TABLE table_pairs (
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            other_id BIGINT NOT NULL REFERENCES bots(id),
            together BIGINT NOT NULL,
            ahead BIGINT NOT NULL,
            level BIGINT NOT NULL,
            PRIMARY KEY (bot_id, other_id)
        )""",
        f"""INSERT INTO seat_results
            (bot_id, players, seat, matches, place_sum, place_squares, firsts)
            SELECT r.bot_id, c.seats, r.seat, COUNT(*), SUM(r.place), SUM(r.place * r.place),
                SUM(CASE WHEN r.place = 0 THEN 1 ELSE 0 END)
            FROM matches m
            JOIN (SELECT match_id, COUNT(*) AS seats FROM results GROUP BY match_id) c
                ON c.match_id = m.id
            JOIN results r ON r.match_id = m.id
            WHERE m.kind = '{MatchKind.RATED}' AND m.state = '{MatchState.DONE}' AND {_IN_SEASON}
            GROUP BY r.bot_id, c.seats, r.seat""",
        f"""INSERT INTO table_pairs (bot_id, other_id, together, ahead, level)
            SELECT a.bot_id, b.bot_id, COUNT(*),
                SUM(CASE WHEN a.place < b.place THEN 1 ELSE 0 END),
                SUM(CASE WHEN a.place = b.place THEN 1 ELSE 0 END)
            FROM matches m
            JOIN results a ON a.match_id = m.id
            JOIN results b ON b.match_id = m.id AND b.seat <> a.seat AND b.bot_id <> a.bot_id
            WHERE m.kind = '{MatchKind.RATED}' AND m.state = '{MatchState.DONE}' AND {_IN_SEASON}
            GROUP BY a.bot_id, b.bot_id""",
    ),
    # 13: provisional ratings (niwa.ladder.skill): each bot's online (mu, sigma^2) in its
    # game this season, for matchmaking only; a bot without a row has a new bot's. A bot
    # rated before this migration starts from its running Elo, with the variance the
    # online update leaves after as many even two-seat matches against a settled bot
    # (sigma 80) as it has played, read at the nearest listed count at or below (so never
    # surer than its games allow): 15 matches or more take it below 150, out of
    # provisional. The numbers are niwa.ladder.skill's at this migration, written out.
    (
        """CREATE TABLE skills (
            bot_id BIGINT PRIMARY KEY REFERENCES bots(id),
            game TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma_sq DOUBLE PRECISION NOT NULL,
            matches BIGINT NOT NULL
        )""",
        """INSERT INTO skills (bot_id, game, mu, sigma_sq, matches)
            SELECT bot_id, game, elo, CASE
                WHEN games >= 100 THEN 4115.0
                WHEN games >= 50 THEN 7385.0
                WHEN games >= 30 THEN 11713.0
                WHEN games >= 20 THEN 17131.0
                WHEN games >= 15 THEN 22460.0
                WHEN games >= 12 THEN 27593.0
                WHEN games >= 10 THEN 32454.0
                WHEN games >= 8 THEN 39167.0
                WHEN games >= 6 THEN 48797.0
                WHEN games >= 4 THEN 63208.0
                WHEN games >= 3 THEN 73165.0
                WHEN games >= 2 THEN 85745.0
                ELSE 101805.0
            END, games
            FROM ratings WHERE games > 0""",
        "CREATE INDEX skills_game ON skills (game)",
        # an ended season's frozen rows keep the mark as it stood (none before this)
        "ALTER TABLE season_standings ADD COLUMN provisional INTEGER NOT NULL DEFAULT 0",
    ),
    # 14: Plackett-Luce ratings (niwa.ladder.kept_pl): an ended season's boards keep the
    # rating model that made them (every board frozen before was pairwise), its seat
    # effects, and each row's Elo per player count
    (
        "ALTER TABLE season_boards ADD COLUMN rating TEXT NOT NULL DEFAULT ''",
        "UPDATE season_boards SET rating = 'pairwise'",
        """CREATE TABLE season_seat_effects (
            season_id BIGINT NOT NULL REFERENCES seasons(id),
            game TEXT NOT NULL,
            players INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            elo DOUBLE PRECISION NOT NULL,
            ci95 DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (season_id, game, players, seat)
        )""",
        """CREATE TABLE season_player_counts (
            season_id BIGINT NOT NULL REFERENCES seasons(id),
            game TEXT NOT NULL,
            bot_id BIGINT NOT NULL REFERENCES bots(id),
            players INTEGER NOT NULL,
            elo DOUBLE PRECISION NOT NULL,
            ci95 DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (season_id, game, bot_id, players)
        )""",
    ),
)

LATEST = len(MIGRATIONS)


class SchemaTooNew(DatabaseError):
    """The store was migrated by a newer niwa than this one: running backwards would
    write rows that code does not expect, so nothing here opens it."""

    def __init__(self, version: int) -> None:
        super().__init__(
            f"the store has schema version {version}, newer than this niwa's "
            f"{LATEST}: a newer niwa migrated it; upgrade niwa on this node to the "
            "version the other nodes run (pip install -U niwa), then start it again"
        )
        self.version = version


def current_version(db: Database) -> int:
    return int(db.scalar("SELECT MAX(version) FROM schema_version") or 0)


def stored_version(db: Database) -> int:
    """The store's version, changing nothing (0: no schema yet)."""
    try:
        return current_version(db)
    except DatabaseError:  # the connection itself
        raise
    except Exception:  # sqlite3 and psycopg alike: no schema_version table yet
        return 0


def migrate(db: Database, target: int = LATEST) -> int:
    """Bring the schema up to ``target`` (:data:`LATEST`: a store this niwa can use; an
    older one only to make test stores as older versions did); return the version it
    was at."""
    with db.transaction():
        db.execute(db.dialect.schema_lock)
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
        start = current_version(db)
    if start > LATEST:
        raise SchemaTooNew(start)
    for version in range(start + 1, target + 1):
        with db.transaction():
            db.execute(db.dialect.schema_lock)
            # Re-check inside the write transaction: another process may have migrated.
            if current_version(db) >= version:
                continue
            for statement in MIGRATIONS[version - 1]:
                db.execute(statement)
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
    return start
