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
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import zlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niwa.bots import builtin
from niwa.bots.manifest import name_problem, version_problem
from niwa.errors import LadderError
from niwa.ladder import auth, elo
from niwa.ladder.db import Database, DatabaseError, Row, is_postgres_url, sqlite_path
from niwa.ladder.kept_fit import KeptFit
from niwa.ladder.schema import migrate

SYSTEM_OWNER = "niwa"
#: Owner names: lowercase ASCII only, so that no two look alike (no case or Unicode
#: confusables); compared case-insensitively with the names of older ladders too.
OWNER_NAME_CHARS = 32
_OWNER_NAME = re.compile(rf"[a-z0-9][a-z0-9_-]{{0,{OWNER_NAME_CHARS - 1}}}")
#: Bot names only the system owner may use: the built-ins, their numbered copies
#: (the demo's ``random-2``), and "builtin"/"niwa"; compared case-insensitively.
_RESERVED_WORDS = [*builtin.names(), "builtin", SYSTEM_OWNER]
_RESERVED = re.compile(
    "(?:" + "|".join(map(re.escape, _RESERVED_WORDS)) + ")(?:-[0-9]+)?",
    re.IGNORECASE | re.ASCII,
)

# Bot statuses: only "active" bots are scheduled and ranked.
PENDING, ACTIVE, REJECTED, RETIRED, SUPERSEDED, RESERVE, SUSPENDED = (
    "pending",
    "active",
    "rejected",
    "retired",
    "superseded",
    "reserve",  # a built-in bot that only fills validation matches
    "suspended",  # went out of too many rated matches in a row (niwa.ladder.suspension)
)
# Match kinds and states.
RATED, VALIDATION = "rated", "validation"
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


class _NotRunning(LadderError):
    """Rolls back the commit of a match that is no longer running."""


class StoreError(LadderError, ValueError):
    """A request the store refuses (unknown id, duplicate name, ...)."""


def owner_name_problem(name: str) -> str:
    """Why ``name`` cannot be a new owner's name ("" if it can)."""
    if _OWNER_NAME.fullmatch(name):
        return ""
    return (
        f"owner name {name[:80]!r}: use 1-{OWNER_NAME_CHARS} lowercase ASCII letters, "
        "digits, - and _, starting with a letter or digit"
    )


def is_reserved(bot_name: str) -> bool:
    """A name kept for niwa's built-in bots."""
    return _RESERVED.fullmatch(bot_name) is not None


@dataclass(frozen=True)
class Owner:
    id: int
    name: str
    is_admin: bool


@dataclass(frozen=True)
class Bot:
    id: int
    name: str
    version: str
    game: str
    owner_id: int
    owner: str
    source: str  # "builtin:NAME" or "archive"
    archive_hash: str | None
    status: str
    reason: str
    elo: float
    games: int
    wins: int

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class Match:
    id: int
    game: str
    game_version: str
    kind: str
    seed: int
    options: dict[str, Any]
    players: int
    state: str
    attempts: int
    duplicate_group: int | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    wall_s: float | None
    decisions: int | None
    error: str
    replay_sha256: str | None
    seq: int | None
    seats: tuple[int, ...]  # bot id per seat


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot_id: int
    place: int
    score: float
    status: str  # "ok" or "out"
    reason: str = ""  # when out: the failure class (TIMEOUT, CRASHED, ...)
    out_step: int | None = None  # the step it went out at; None: at start-up (or ok)
    detail: str = ""  # the referee's line on what went wrong
    stderr_tail: tuple[str, ...] = ()  # the bot's last stderr lines: its owner's only


@dataclass(frozen=True)
class Finished:
    """What a worker reports for a match that ran to its end."""

    results: tuple[SeatResult, ...]
    decisions: int
    wall_s: float
    replay_sha256: str
    #: The results carry every seat's stderr tail, not only the out seats' (niwa.ladder.tails).
    stderr_kept: bool = False


_BOT_COLUMNS = """b.id, b.name, b.version, b.game, b.owner_id, o.name AS owner, b.source,
    b.archive_hash, b.status, b.reason,
    COALESCE(r.elo, ?) AS elo, COALESCE(r.games, 0) AS games, COALESCE(r.wins, 0) AS wins"""
_BOT_FROM = """FROM bots b JOIN owners o ON o.id = b.owner_id
    LEFT JOIN ratings r ON r.bot_id = b.id"""


#: What ladders before schema 3 appended to a seat's reason: its stderr, now private.
OLD_STDERR = " | stderr: "


def _result(row: Row) -> SeatResult:
    """A results row; a reason written before schema 3 ("CLASS: detail | stderr: ...")
    is split, and its stderr moved out of the public reason."""
    reason, _, old_tail = str(row["reason"]).partition(OLD_STDERR)
    detail = str(row["detail"])
    if not detail and ": " in reason:  # the old "CLASS: detail"
        reason, _, detail = reason.partition(": ")
    tail = [str(line) for line in json.loads(row["stderr_tail"] or "[]")]
    if not tail and old_tail:
        tail = old_tail.split(" / ")
    return SeatResult(
        seat=int(row["seat"]),
        bot_id=int(row["bot_id"]),
        place=int(row["place"]),
        score=float(row["score"]),
        status=str(row["status"]),
        reason=reason,
        out_step=None if row["out_step"] is None else int(row["out_step"]),
        detail=detail,
        stderr_tail=tuple(tail),
    )


def _bot(row: Row) -> Bot:
    return Bot(**{**row, "elo": float(row["elo"])})


class Store:
    """One connection to the store plus the folder of its files."""

    def __init__(self, db: Database, data_dir: Path) -> None:
        self.db = db
        self.data_dir = data_dir
        #: game -> its last leaderboard fit: see :meth:`rated_fit`
        self._fits: dict[str, KeptFit] = {}

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
        return cls(db, data_dir)

    def close(self) -> None:
        self.db.close()

    # Files ---------------------------------------------------------------------------

    def replay_path(self, match_id: int) -> Path:
        """A finished match's replay: only the attempt that was recorded is put here."""
        return self.data_dir / "replays" / f"{match_id}.jsonl"

    def attempt_replay_path(self, match_id: int, attempt: int) -> Path:
        """Where one attempt at a match writes its replay. An attempt dropped after a
        lost lease (played again by the next leader) leaves its file under this name,
        never under :meth:`replay_path`, where it would pass for a damaged replay."""
        return self.data_dir / "replays" / f"{match_id}.attempt{attempt}.jsonl"

    def log_dir(self, match_id: int) -> Path:
        return self.data_dir / "logs" / str(match_id)

    def archive_path(self, archive_hash: str) -> Path:
        return self.data_dir / "archives" / f"{archive_hash}.tar.gz"

    def bot_dir(self, archive_hash: str) -> Path:
        return self.data_dir / "bots" / archive_hash

    # Blobs: the files every node of a ladder reads (replays, bot archives) --------

    def put_blob(self, kind: str, data: bytes) -> str:
        """Keep ``data`` (once: named by its SHA-256, which is returned)."""
        digest = hashlib.sha256(data).hexdigest()
        self.db.execute(
            "INSERT INTO blobs (sha256, kind, size, data) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (sha256) DO NOTHING",
            (digest, kind, len(data), zlib.compress(data, 6)),
        )
        return digest

    def blob(self, sha256: str) -> bytes | None:
        row = self.db.one("SELECT data FROM blobs WHERE sha256 = ?", (sha256,))
        return None if row is None else zlib.decompress(bytes(row["data"]))

    def blob_sizes(self, hashes: Collection[str]) -> dict[str, int]:
        """The size (before compression) of each kept blob among ``hashes``."""
        if not hashes:
            return {}
        marks = ", ".join("?" for _ in hashes)
        rows = self.db.execute(
            f"SELECT sha256, size FROM blobs WHERE sha256 IN ({marks})", list(hashes)
        )
        return {str(r["sha256"]): int(r["size"]) for r in rows}

    # Owners --------------------------------------------------------------------------

    def add_owner(self, name: str, admin: bool = False) -> tuple[Owner, str]:
        """Create an owner; return it with its token (shown once, stored hashed)."""
        problem = owner_name_problem(name)
        if problem:
            raise StoreError(problem)
        token = auth.new_token()
        taken = StoreError(f"owner {name!r} exists already: pick another name")
        with self.db.transaction() as db:
            if db.one("SELECT id FROM owners WHERE lower(name) = lower(?)", (name,)):
                raise taken
            # DO NOTHING, not a unique violation: another node adding the same name at
            # once leaves this transaction usable (PostgreSQL aborts it on an error).
            row = db.one(
                "INSERT INTO owners (name, token_hash, is_admin, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                (name, auth.hash_token(token), int(admin), time.time()),
            )
        if row is None:
            raise taken
        return Owner(int(row["id"]), name, admin), token

    def owner_for_token(self, token: str) -> Owner | None:
        row = self.db.one(
            "SELECT id, name, is_admin FROM owners WHERE token_hash = ?",
            (auth.hash_token(token),),
        )
        if row is None:
            return None
        return Owner(int(row["id"]), row["name"], bool(row["is_admin"]))

    def system_owner(self) -> Owner:
        """The owner of the built-in bots (created on first use, its token discarded)."""
        row = self.db.one("SELECT id, name, is_admin FROM owners WHERE name = ?", (SYSTEM_OWNER,))
        if row is None:
            try:
                return self.add_owner(SYSTEM_OWNER, admin=True)[0]
            except StoreError:  # created meanwhile by another node: read its row
                return self.system_owner()
        return Owner(int(row["id"]), row["name"], bool(row["is_admin"]))

    # Bots ----------------------------------------------------------------------------

    def check_new_bot(
        self, name: str, version: str, games: Sequence[str], owner_id: int
    ) -> None:
        """Refuse (StoreError, naming the fix) a bot ``owner_id`` may not add: a bad or
        reserved name, a name another owner has (in any game, in any case), a version
        already on one of ``games``."""
        for problem in (name_problem(name), version_problem(version)):
            if problem:
                raise StoreError(f"bot {name[:80]!r}: {problem}")
        owner = self.db.one("SELECT name FROM owners WHERE id = ?", (owner_id,))
        if owner is None:
            raise StoreError(f"no owner has id {owner_id}")
        if is_reserved(name) and owner["name"] != SYSTEM_OWNER:
            raise StoreError(
                f"bot name {name!r} is reserved for niwa's built-in bots: rename your bot"
            )
        rows = self.db.execute(
            "SELECT DISTINCT b.name, b.owner_id, o.name AS owner FROM bots b "
            "JOIN owners o ON o.id = b.owner_id WHERE lower(b.name) = lower(?)",
            (name,),
        )
        for row in rows:
            if row["owner_id"] != owner_id:
                raise StoreError(f"bot name {name!r} belongs to {row['owner']}: rename your bot")
            if row["name"] != name:
                raise StoreError(
                    f"you already have a bot named {row['name']!r}: spell {name!r} the same way"
                )
        for game in games:
            if self.db.one(
                "SELECT id FROM bots WHERE lower(name) = lower(?) AND version = ? AND game = ?",
                (name, version, game),
            ):
                raise StoreError(
                    f"{name}@{version} is already on the {game} ladder: raise the version "
                    "in bot.toml"
                )

    def add_bot(
        self,
        name: str,
        version: str,
        game: str,
        owner_id: int,
        source: str,
        archive_hash: str | None,
        status: str = PENDING,
    ) -> Bot:
        with self.db.transaction() as db:
            self.check_new_bot(name, version, [game], owner_id)
            row = db.one(
                "INSERT INTO bots (name, version, game, owner_id, source, archive_hash, status,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING "
                "RETURNING id",
                (name, version, game, owner_id, source, archive_hash, status, time.time()),
            )
            if row is None:  # added by another node since check_new_bot looked
                raise StoreError(
                    f"{name}@{version} is already on the {game} ladder: raise the version "
                    "in bot.toml"
                )
            bot_id = int(row["id"])
            if status == ACTIVE:
                self._activate(bot_id)
        return self.bot(bot_id)

    def owner_usage(self, owner_id: int) -> tuple[int, set[str]]:
        """What counts against an owner's quota: their bot versions (a name@version in
        several games counts once) and the archives they are stored from."""
        rows = self.db.execute(
            "SELECT name, version, archive_hash FROM bots WHERE owner_id = ?", (owner_id,)
        )
        versions = {(r["name"].lower(), r["version"]) for r in rows}
        return len(versions), {str(r["archive_hash"]) for r in rows if r["archive_hash"]}

    def archive_in_use(self, archive_hash: str) -> bool:
        return self.db.one(
            "SELECT id FROM bots WHERE archive_hash = ? LIMIT 1", (archive_hash,)
        ) is not None

    def archive_hashes(self) -> set[str]:
        rows = self.db.execute("SELECT DISTINCT archive_hash FROM bots WHERE archive_hash "
                               "IS NOT NULL")
        return {str(r["archive_hash"]) for r in rows}

    # Settings the ladder's admin may change (quotas) ---------------------------------

    def setting(self, key: str) -> str | None:
        row = self.db.one("SELECT value FROM settings WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def int_setting(self, key: str, default: int) -> int:
        """A whole-number setting an admin keeps in the store; ``default`` if never set."""
        value = self.setting(key)
        return default if value is None else int(value)

    def set_setting(self, key: str, value: str) -> None:
        # one statement: two nodes setting a key at once both succeed (the last wins)
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def bot(self, bot_id: int) -> Bot:
        row = self.db.one(f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.id = ?", (elo.BASE, bot_id))
        if row is None:
            raise StoreError(f"no bot has id {bot_id}: see `niwa ladder leaderboard`")
        return _bot(row)

    def find_builtin(self, source: str, name: str, version: str, game: str) -> Bot | None:
        """The system owner's row for built-in ``source`` listed as ``name``: found by
        who owns it and what it runs, never by a name alone."""
        row = self.db.one(
            f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.source = ? AND o.name = ? "
            "AND b.name = ? AND b.version = ? AND b.game = ?",
            (elo.BASE, source, SYSTEM_OWNER, name, version, game),
        )
        return None if row is None else _bot(row)

    def bots(self, game: str | None = None, statuses: Iterable[str] | None = None) -> list[Bot]:
        where, params = ["1 = 1"], list[Any]([elo.BASE])
        if game:
            where.append("b.game = ?")
            params.append(game)
        wanted = list(statuses or [])
        if wanted:
            where.append(f"b.status IN ({', '.join('?' for _ in wanted)})")
            params.extend(wanted)
        rows = self.db.execute(
            f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE {' AND '.join(where)} "
            "ORDER BY b.game, b.name, b.id",
            params,
        )
        return [_bot(r) for r in rows]

    def ratings(self, game: str) -> list[tuple[int, float, int, bool]]:
        """(id, running Elo, games, built-in) of the active bots of ``game``, in the
        order of :meth:`bots`: what the scheduler needs, without building every
        :class:`Bot`. Built-in: the system owner's (not a submitted bot)."""
        rows = self.db.execute(
            "SELECT b.id, COALESCE(r.elo, ?) AS elo, COALESCE(r.games, 0) AS games, "
            f"o.name AS owner {_BOT_FROM} WHERE b.game = ? AND b.status = ? "
            "ORDER BY b.game, b.name, b.id",
            (elo.BASE, game, ACTIVE),
        )
        return [
            (int(r["id"]), float(r["elo"]), int(r["games"]), r["owner"] == SYSTEM_OWNER)
            for r in rows
        ]

    def set_bot_status(self, bot_id: int, status: str, reason: str = "") -> None:
        with self.db.transaction() as db:
            db.execute(
                "UPDATE bots SET status = ?, reason = ? WHERE id = ?", (status, reason, bot_id)
            )
            if status == ACTIVE:
                self._activate(bot_id)

    def _activate(self, bot_id: int) -> None:
        """Give the bot a rating row and retire its older versions (kept for history)."""
        row = self.db.one("SELECT name, game FROM bots WHERE id = ?", (bot_id,))
        assert row is not None
        self.db.execute(
            "UPDATE bots SET status = ?, reason = ? WHERE name = ? AND game = ? AND id <> ? "
            "AND status = ?",
            (SUPERSEDED, f"replaced by bot {bot_id}", row["name"], row["game"], bot_id, ACTIVE),
        )
        self.db.execute(
            "INSERT INTO ratings (bot_id, game, elo, games, wins) VALUES (?, ?, ?, 0, 0) "
            "ON CONFLICT (bot_id) DO NOTHING",
            (bot_id, row["game"], elo.BASE),
        )

    # Matches -------------------------------------------------------------------------

    def queue_match(
        self,
        game: str,
        game_version: str,
        seats: Sequence[int],
        seed: int,
        options: dict[str, Any] | None = None,
        kind: str = RATED,
        duplicate_group: int | None = None,
    ) -> int:
        with self.db.transaction() as db:
            row = db.one(
                "INSERT INTO matches (game, game_version, kind, seed, options, players, state,"
                " duplicate_group, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    game,
                    game_version,
                    kind,
                    seed,
                    json.dumps(options or {}, sort_keys=True),
                    len(seats),
                    QUEUED,
                    duplicate_group,
                    time.time(),
                ),
            )
            assert row is not None
            match_id = int(row["id"])
            for seat, bot_id in enumerate(seats):
                db.execute(
                    "INSERT INTO match_seats (match_id, seat, bot_id) VALUES (?, ?, ?)",
                    (match_id, seat, bot_id),
                )
                db.execute(
                    "INSERT INTO seat_totals (bot_id, seat, matches) VALUES (?, ?, 1) "
                    "ON CONFLICT (bot_id, seat) DO UPDATE SET matches = seat_totals.matches + 1",
                    (bot_id, seat),
                )
        return match_id

    def claim_next(self) -> Match | None:
        """Move the oldest queued match (validation first) to running, atomically: one
        statement picks and takes it (of two runners racing for it, one gets it, the
        other None this time)."""
        row = self.db.one(
            "UPDATE matches SET state = ?, attempts = attempts + 1, started_at = ? "
            "WHERE id = (SELECT id FROM matches WHERE state = ? "
            "ORDER BY CASE WHEN kind = ? THEN 0 ELSE 1 END, id LIMIT 1) AND state = ? "
            "RETURNING *",
            (RUNNING, time.time(), QUEUED, VALIDATION, QUEUED),
        )
        return None if row is None else self._match(row)

    def requeue_running(self) -> list[int]:
        """After a crash: the matches that were running go back to the queue."""
        with self.db.transaction() as db:
            rows = db.execute("SELECT id FROM matches WHERE state = ? ORDER BY id", (RUNNING,))
            db.execute(
                "UPDATE matches SET state = ?, started_at = NULL WHERE state = ?", (QUEUED, RUNNING)
            )
        return [int(r["id"]) for r in rows]

    def hand_back(self, matches: Iterable[Match]) -> list[int]:
        """Put these claimed matches back in the queue (a draining runner's leftovers),
        each only if it still runs the attempt claimed; return the ids put back."""
        back = []
        for match in matches:
            row = self.db.one(
                "UPDATE matches SET state = ?, started_at = NULL "
                "WHERE id = ? AND state = ? AND attempts = ? RETURNING id",
                (QUEUED, match.id, RUNNING, match.attempts),
            )
            if row is not None:
                back.append(match.id)
        return sorted(back)

    def pending_rated(self) -> int:
        """Rated matches queued or running."""
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM matches WHERE kind = ? AND state IN (?, ?)",
                (RATED, QUEUED, RUNNING),
            )
        )

    def queued_count(self) -> int:
        return int(self.db.scalar("SELECT COUNT(*) FROM matches WHERE state = ?", (QUEUED,)))

    def match(self, match_id: int) -> Match:
        row = self.db.one("SELECT * FROM matches WHERE id = ?", (match_id,))
        if row is None:
            raise StoreError(f"no match has id {match_id}: see `niwa ladder matches`")
        return self._match(row)

    def _match(self, row: Row) -> Match:
        seats = self.db.execute(
            "SELECT bot_id FROM match_seats WHERE match_id = ? ORDER BY seat", (row["id"],)
        )
        fields = {**row, "options": json.loads(row["options"])}
        return Match(**fields, seats=tuple(int(s["bot_id"]) for s in seats))

    def matches(
        self,
        game: str | None = None,
        bot_id: int | None = None,
        state: str | None = None,
        limit: int = 20,
        bot_ids: Sequence[int] | None = None,
        after_seq: int | None = None,
        before_id: int | None = None,
    ) -> list[Match]:
        """Newest first (with ``before_id``, those older than it); with ``after_seq``, the
        finished ones after it, oldest first."""
        where, params = ["1 = 1"], list[Any]()
        if game:
            where.append("m.game = ?")
            params.append(game)
        if state:
            where.append("m.state = ?")
            params.append(state)
        if bot_id is not None:
            where.append("m.id IN (SELECT match_id FROM match_seats WHERE bot_id = ?)")
            params.append(bot_id)
        if bot_ids is not None:  # any of these bots (none: no match)
            marks = ", ".join("?" for _ in bot_ids) or "NULL"
            where.append(f"m.id IN (SELECT match_id FROM match_seats WHERE bot_id IN ({marks}))")
            params.extend(bot_ids)
        order = "m.id DESC"
        if before_id is not None:
            where.append("m.id < ?")
            params.append(before_id)
        if after_seq is not None:
            where.append("m.seq > ?")
            params.append(after_seq)
            order = "m.seq"
        rows = self.db.execute(
            f"SELECT m.* FROM matches m WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?",
            [*params, limit],
        )
        return [self._match(r) for r in rows]

    def results(self, match_id: int) -> list[SeatResult]:
        rows = self.db.execute(
            "SELECT seat, bot_id, place, score, status, reason, out_step, detail, stderr_tail "
            "FROM results WHERE match_id = ? ORDER BY seat",
            (match_id,),
        )
        return [_result(r) for r in rows]

    def validation_tail(self, bot_id: int) -> tuple[str, ...]:
        """The stderr tail of the bot's last finished validation match, if it went out."""
        row = self.db.one(
            "SELECT r.match_id FROM results r JOIN matches m ON m.id = r.match_id "
            "WHERE r.bot_id = ? AND m.kind = ? AND r.status <> 'ok' "
            "ORDER BY m.id DESC LIMIT 1",
            (bot_id, VALIDATION),
        )
        if row is None:
            return ()
        for r in self.results(int(row["match_id"])):
            if r.bot_id == bot_id and r.stderr_tail:
                return r.stderr_tail
        return ()

    def finish_match(
        self,
        match_id: int,
        finished: Finished,
        replay: bytes | None = None,
        attempt: int | None = None,
    ) -> bool:
        """Commit a finished match: results, replay hash (and the ``replay`` itself, for
        every node to read), ratings, all or nothing.

        Returns False (and changes nothing) if the match is not running, or, given its
        ``attempt`` (``Match.attempts`` when claimed), if it is running a later attempt
        (claimed again by the runner that took the lease over): a result that arrives
        twice is counted once, and only from the attempt still running."""
        attempt_check, params = ("", ()) if attempt is None else (" AND attempts = ?", (attempt,))
        try:
            with self.db.transaction() as db:
                # The state is checked by the write itself: of two commits of one match
                # (a runner that lost its lease and its successor), one changes it.
                row = db.one(
                    "UPDATE matches SET state = ?, finished_at = ?, wall_s = ?, decisions = ?,"
                    " replay_sha256 = ?, seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM matches),"
                    f" error = '' WHERE id = ? AND state = ?{attempt_check} RETURNING kind, game",
                    (
                        DONE, time.time(), finished.wall_s, finished.decisions,
                        finished.replay_sha256, match_id, RUNNING, *params,
                    ),
                )  # fmt: skip
                if row is None:
                    raise _NotRunning
                if replay is not None:
                    self.put_blob("replay", replay)
                self._commit_results(match_id, str(row["kind"]), str(row["game"]), finished)
        except _NotRunning:
            return False
        return True

    def _commit_results(self, match_id: int, kind: str, game: str, finished: Finished) -> None:
        self.db.execute_many(
            "INSERT INTO results (match_id, seat, bot_id, place, score, status, reason,"
            " out_step, detail, stderr_tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id, r.seat, r.bot_id, r.place, r.score, r.status, r.reason,
                    r.out_step, r.detail, json.dumps(list(r.stderr_tail)),
                )
                for r in finished.results
            ],
        )  # fmt: skip
        if finished.stderr_kept:
            self.db.execute(
                "INSERT INTO stderr_kept (match_id, every_seat) VALUES (?, 1)", (match_id,)
            )
        if kind == RATED:
            self._rate(match_id, finished.results)
            self._count_rated(game, finished.results)

    def _count_rated(self, game: str, results: Sequence[SeatResult]) -> None:
        """Add a rated match to its game's totals (inside the commit's transaction)."""
        self.db.execute(
            "INSERT INTO rated_totals (game, matches) VALUES (?, 1) "
            "ON CONFLICT (game) DO UPDATE SET matches = rated_totals.matches + 1",
            (game,),
        )
        placings = [(r.bot_id, r.place) for r in sorted(results, key=lambda r: r.seat)]
        self.db.execute_many(
            "INSERT INTO pair_totals (game, bot_id, other_id, meetings, games, score) "
            "VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (game, bot_id, other_id) DO UPDATE SET "
            "meetings = pair_totals.meetings + 1, games = pair_totals.games + ?, "
            "score = pair_totals.score + ?",
            [(game, a, b, g, w, g, w) for a, b, g, w in elo.match_pairs(placings)],
        )

    def _rate(self, match_id: int, results: Sequence[SeatResult]) -> None:
        ids = sorted({r.bot_id for r in results})
        rows = self.db.execute(
            f"SELECT bot_id, elo FROM ratings WHERE bot_id IN ({', '.join('?' for _ in ids)})",
            ids,
        )
        rating = {int(r["bot_id"]): float(r["elo"]) for r in rows}
        for r in results:
            if r.bot_id not in rating:
                raise StoreError(f"bot {r.bot_id} has no rating: it is not active")
        before = [rating[r.bot_id] for r in results]
        after = elo.update(before, [r.place for r in results])
        changes = list(zip(results, before, after, strict=True))
        self.db.execute_many(
            "UPDATE ratings SET elo = ?, games = games + 1, wins = wins + ? WHERE bot_id = ?",
            [(new, int(r.place == 0), r.bot_id) for r, _, new in changes],
        )
        self.db.execute_many(
            "INSERT INTO rating_history (match_id, bot_id, elo_before, elo_after) "
            "VALUES (?, ?, ?, ?)",
            [(match_id, r.bot_id, old, new) for r, old, new in changes],
        )

    def fail_match(self, match_id: int, error: str, retries: int = 2) -> str:
        """A match the referee could not run (not a bot's fault): retry, then give up."""
        with self.db.transaction() as db:
            row = db.one("SELECT attempts, state FROM matches WHERE id = ?", (match_id,))
            if row is None or row["state"] != RUNNING:
                return "" if row is None else str(row["state"])
            state = QUEUED if int(row["attempts"]) <= retries else FAILED
            db.execute(
                "UPDATE matches SET state = ?, error = ?, finished_at = ? WHERE id = ?",
                (state, error[:2000], time.time(), match_id),
            )
        return state

    # Ratings -------------------------------------------------------------------------

    def rated_placings(self, game: str) -> list[list[tuple[int, int]]]:
        """Every finished rated match of ``game`` as (bot, place) per seat, in order."""
        rows = self.db.execute(
            "SELECT r.match_id, r.bot_id, r.place FROM results r "
            "JOIN matches m ON m.id = r.match_id "
            "WHERE m.game = ? AND m.kind = ? AND m.state = ? ORDER BY m.seq, r.seat",
            (game, RATED, DONE),
        )
        matches: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["match_id"]), []).append((int(r["bot_id"]), int(r["place"])))
        return list(matches.values())

    def seat_counts(self, bot_ids: Iterable[int]) -> dict[tuple[int, int], int]:
        """How often each bot sat in each seat (matches of every kind and state)."""
        ids = list(bot_ids)
        if not ids:
            return {}
        rows = self.db.execute(
            "SELECT bot_id, seat, matches FROM seat_totals "
            f"WHERE bot_id IN ({', '.join('?' for _ in ids)})",
            ids,
        )
        return {(int(r["bot_id"]), int(r["seat"])): int(r["matches"]) for r in rows}

    def rated_count(self, game: str) -> int:
        """Finished rated matches of ``game``."""
        return int(
            self.db.scalar("SELECT matches FROM rated_totals WHERE game = ?", (game,)) or 0
        )

    def shown_totals(self, game: str, shown: Collection[int]) -> elo.PairTotals[int]:
        """The pairwise totals of ``game`` between the bots in ``shown``, as
        :func:`niwa.ladder.elo.pair_totals` would make them from the placings cut down to the
        shown seats (``niwa.ladder.reads.shown_placings``).

        The stored totals weigh each pair of an n-seat match 1/(n-1); a match that also
        seated a bot not shown (superseded, retired) counts among the shown ones with
        fewer seats, so those matches alone are read again and their pairs re-weighed."""
        totals: dict[tuple[int, int], list[float]] = {}
        others: set[int] = set()
        for r in self.db.execute(
            "SELECT bot_id, other_id, meetings, games, score FROM pair_totals WHERE game = ?",
            (game,),
        ):
            a, b = int(r["bot_id"]), int(r["other_id"])
            if a in shown and b in shown:
                totals[a, b] = [float(r["meetings"]), float(r["games"]), float(r["score"])]
            else:
                others.update(x for x in (a, b) if x not in shown)
        if others:
            for match in self._placings_with(game, sorted(others)):
                for a, b, g, w in elo.match_pairs(match):
                    if a in shown and b in shown:
                        entry = totals[a, b]
                        entry[0] -= 1
                        entry[1] -= g
                        entry[2] -= w
                kept = [(bot, place) for bot, place in match if bot in shown]
                for a, b, g, w in elo.match_pairs(kept) if len(kept) >= 2 else []:
                    entry = totals.setdefault((a, b), [0.0, 0.0, 0.0])
                    entry[0] += 1
                    entry[1] += g
                    entry[2] += w
        return {pair: (g, w) for pair, (n, g, w) in totals.items() if n > 0.5}

    def _placings_with(self, game: str, bot_ids: Sequence[int]) -> list[list[tuple[int, int]]]:
        """The finished rated matches of ``game`` that seated any of ``bot_ids``."""
        marks = ", ".join("?" for _ in bot_ids)
        rows = self.db.execute(
            "SELECT r.match_id, r.bot_id, r.place FROM results r "
            "JOIN matches m ON m.id = r.match_id "
            "WHERE m.game = ? AND m.kind = ? AND m.state = ? AND r.match_id IN "
            f"(SELECT match_id FROM match_seats WHERE bot_id IN ({marks})) "
            "ORDER BY m.seq, r.seat",
            (game, RATED, DONE, *bot_ids),
        )
        matches: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["match_id"]), []).append((int(r["bot_id"]), int(r["place"])))
        return list(matches.values())

    def rated_fit(self, game: str, shown: Collection[int]) -> dict[int, elo.Estimate]:
        """The leaderboard's maximum-likelihood Elo of ``game`` over the ``shown`` bots.

        Remembered per game until a rated match of it is committed (by any process: the
        stored count moves) or the set of bots shown changes. After a commit only the
        matches since the last fit are read and added to its totals, and the fit starts
        from the last ratings: the optimum has moved little (:func:`niwa.ladder.mle.fit_from`).
        A new set of bots shown reads every total again, still starting from the last
        ratings."""
        wanted = frozenset(shown)
        count = self.rated_count(game)
        kept = self._fits.get(game)
        if kept is not None and kept.shown == wanted and kept.matches >= 0:
            if kept.matches == count:
                return kept.fit.estimates
            for seq, placings in self._rated_since(game, kept.seq):
                kept.add(seq, placings)
        else:
            fresh = self._kept_fit(game, wanted)
            if kept is not None:
                fresh.fit = kept.fit
            kept = fresh
        self._fits.pop(game, None)  # kept again only once its totals and fit agree
        estimates = kept.refit()
        self._fits[game] = kept
        return estimates

    def _kept_fit(self, game: str, shown: frozenset[int]) -> KeptFit:
        """The totals of ``game`` over ``shown`` with the rated count and newest seq
        they hold, read again if a rated match was committed meanwhile; after three
        tries, marked as holding an unknown count (``matches`` -1: read again next time)."""
        for _ in range(3):
            count = self.rated_count(game)
            seq = int(
                self.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM matches WHERE game = ?",
                               (game,))
            )  # fmt: skip
            totals = self.shown_totals(game, shown)
            if self.rated_count(game) == count:
                break
        else:
            count = -1
        pairs = elo.Pairs.of(sorted({a for a, _ in totals}), totals)
        return KeptFit(shown, count, seq, pairs)

    def _rated_since(self, game: str, seq: int) -> list[tuple[int, list[tuple[int, int]]]]:
        """The finished rated matches of ``game`` numbered after ``seq``, in order, as
        (seq, [(bot, place) per seat])."""
        rows = self.db.execute(
            "SELECT m.seq, r.bot_id, r.place FROM matches m "
            "JOIN results r ON r.match_id = m.id "
            "WHERE m.game = ? AND m.seq > ? AND m.kind = ? AND m.state = ? "
            "ORDER BY m.seq, r.seat",
            (game, seq, RATED, DONE),
        )
        matches: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["seq"]), []).append((int(r["bot_id"]), int(r["place"])))
        return list(matches.items())

    def games_with_bots(self) -> list[str]:
        """The games some bot was submitted (or added as sparring partner) for, A to Z."""
        rows = self.db.execute("SELECT DISTINCT game FROM bots ORDER BY game")
        return [str(r["game"]) for r in rows]

    def counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT state, COUNT(*) AS n FROM matches GROUP BY state")
        return {str(r["state"]): int(r["n"]) for r in rows}

    def scheduled_counts(self, game: str) -> dict[int, int]:
        """Per bot: matches of ``game`` queued or running (not yet in its game count)."""
        # From the few queued and running matches (matches_state), never every seat row.
        rows = self.db.execute(
            "SELECT bot_id, COUNT(*) AS n FROM match_seats WHERE match_id IN "
            "(SELECT id FROM matches WHERE state IN (?, ?) AND game = ?) GROUP BY bot_id",
            (QUEUED, RUNNING, game),
        )
        return {int(r["bot_id"]): int(r["n"]) for r in rows}

    def next_duplicate_group(self) -> int:
        return int(self.db.scalar("SELECT COALESCE(MAX(duplicate_group), 0) + 1 FROM matches"))
