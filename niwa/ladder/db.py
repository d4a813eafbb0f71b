"""A thin database layer: SQLite (a file, WAL) by default, PostgreSQL for a shared ladder.

Every statement the ladder runs is written once, in SQL both engines accept, with ``?``
placeholders. The two differences that cannot be written portably live here and only
here: the DB-API paramstyle (``?`` for sqlite3, ``%s`` for psycopg), and a handful of
dialect words (the auto-numbered key column, how a write transaction starts).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niwa.errors import LadderError
from niwa.ladder.secret_file import SecretFileError, read_secret

Row = dict[str, Any]


class DatabaseError(LadderError):
    """The store cannot be opened or used; the message names the cause and the fix."""


class ConnectionLost(DatabaseError):
    """The connection to a PostgreSQL server broke (the server restarted, the network
    went, or a runner that took the lease over ended this session): this connection
    is of no more use, a new one may work."""


#: What a reader is told while the store's server does not answer (the web front's 503,
#: the API's UNAVAILABLE); the cause follows it.
UNAVAILABLE = "the ladder's database does not answer; retry shortly"


class Unavailable(ConnectionLost):
    """A reconnecting :class:`Database` found its connection broken and could not open
    a new one: the server is down, restarting or out of reach. The next statement tries
    again."""


def unavailable(error: DatabaseError) -> str:
    """What a reader is told when the store failed it with ``error``."""
    text = str(error)
    return text if text.startswith(UNAVAILABLE) else f"{UNAVAILABLE} ({text})"


@dataclass(frozen=True)
class Dialect:
    name: str
    placeholder: str  # what ``?`` becomes
    id_column: str  # an auto-numbered primary key
    begin: str  # start a transaction that will write
    blob: str  # the type of a column of bytes
    now: str  # the database server's clock, in seconds since the epoch
    #: inside a transaction: wait until no other process is changing the schema
    schema_lock: str
    #: inside a transaction: wait until no other process is numbering a finished match
    seq_lock: str

    def sql(self, statement: str) -> str:
        """Rewrite a portable statement (``?`` placeholders, ``{id}``, ``{blob}`` and
        ``{now}`` words) for this engine."""
        statement = (
            statement.replace("{id}", self.id_column)
            .replace("{blob}", self.blob)
            .replace("{now}", self.now)
        )
        if self.placeholder == "?":
            return statement
        # psycopg treats % as the start of a placeholder: double the literal ones first.
        return statement.replace("%", "%%").replace("?", self.placeholder)


# BEGIN IMMEDIATE takes SQLite's write lock up front, so two writers never deadlock
# upgrading a read lock; PostgreSQL's row locks make a plain BEGIN enough.
# ``now``: the clock of the one machine a SQLite file lives on; PostgreSQL's own clock,
# so that runners on machines whose clocks disagree still agree on a lease's expiry.
# ``schema_lock``: SQLite's write lock is the whole file's already; PostgreSQL's
# transaction-scoped advisory lock (any fixed key) queues nodes opening a store at once.
# ``seq_lock``: the same, on another key, for numbering finished matches: two commits
# reading MAX(seq) at once would both take the next number, and the second would fail
# on the unique index instead of taking the one after.
SQLITE = Dialect(
    "sqlite", "?", "INTEGER PRIMARY KEY", "BEGIN IMMEDIATE", "BLOB",
    "((julianday('now') - 2440587.5) * 86400.0)", "SELECT 1", "SELECT 1",
)
POSTGRES = Dialect(
    "postgresql", "%s", "BIGSERIAL PRIMARY KEY", "BEGIN", "BYTEA",
    "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION",
    "SELECT pg_advisory_xact_lock(7465)", "SELECT pg_advisory_xact_lock(7466)",
)  # fmt: skip


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///").removeprefix("sqlite://"))


#: How long opening a SQLite store waits for another connection switching it to WAL.
WAL_WAIT_S = 30.0


def _wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL (once per file; a no-op after). Several processes opening a new
    file at once race for it, and the switch fails at once with "database is locked"
    instead of waiting like other statements: wait for the winner and retry."""
    deadline = time.monotonic() + WAL_WAIT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _sqlite_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write (the file's mode and the journal are the writer's)."""
    if not path.is_file():
        raise DatabaseError(f"no ladder store at {path}: give the right --db")
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
            check_same_thread=False, timeout=30.0,
        )  # fmt: skip
        conn.execute("PRAGMA query_only=ON")
    except sqlite3.Error as e:
        raise DatabaseError(f"cannot open the database {path} to read: {e}") from None
    return conn


#: Seconds a PostgreSQL session may sit inside a transaction doing nothing.
IDLE_IN_TRANSACTION_S = 15


#: niwa's own URL parameter: a file holding the role's password (libpq never sees it).
PASSWORD_FILE = "password_file"


def with_password_file(url: str, path: Path) -> str:
    """``url`` naming ``path`` as the file of its password: only the path travels (to
    the web thread, the runner's settings, the messages), the password never."""
    if not is_postgres_url(url):
        raise DatabaseError(
            f"a password file goes with a postgresql:// store, not {url}: drop password_file"
        )
    parts = urllib.parse.urlsplit(url)
    given = _without_password_file(parts.query)
    added = urllib.parse.urlencode({PASSWORD_FILE: str(path)})
    query = f"{given}&{added}" if given else added
    return urllib.parse.urlunsplit(parts._replace(query=query))


def _without_password_file(query: str) -> str:
    """A URL's query without niwa's parameter, the others as they were written (libpq
    reads them, messages show them)."""
    return "&".join(p for p in query.split("&") if p.split("=", 1)[0] != PASSWORD_FILE)


def _password(url: str) -> tuple[str, dict[str, Any]]:
    """``url`` without niwa's ``password_file`` parameter, and psycopg's ``password``
    argument read from that file (none without one)."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    files = [v for k, v in query if k == PASSWORD_FILE]
    if not files:
        return url, {}
    try:
        password = read_secret(Path(files[-1]), "database password")
    except SecretFileError as e:
        raise DatabaseError(str(e)) from None
    rest = _without_password_file(parts.query)
    return urllib.parse.urlunsplit(parts._replace(query=rest)), {"password": password}


def _postgres(url: str, read_only: bool) -> Any:
    url, password = _password(url)
    try:
        import psycopg
    except ModuleNotFoundError:
        raise DatabaseError(
            "a PostgreSQL store needs psycopg, which is not installed: "
            "pip install 'niwa[postgres]'"
        ) from None
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=30, **password)
        # The ladder's transactions never wait between statements: a session that does
        # (its process paused, its machine gone) is ended by the server, so its row
        # locks cannot hold up the runner that took over. A session paused in the middle
        # of a pipeline (``execute_many``) or of a long message is not idle to the server
        # but "active", waiting for the client: a runner taking the lease over ends
        # those itself (:meth:`Database.end_sessions`).
        conn.execute(f"SET idle_in_transaction_session_timeout = '{IDLE_IN_TRANSACTION_S}s'")
        if read_only:
            conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    except psycopg.Error as e:
        # libpq's own words name the cause (refused, no such database, bad password)
        cause = " ".join(str(e).split())
        raise DatabaseError(
            f"cannot connect to the PostgreSQL store {redact(url)}: {cause}"
        ) from None
    return conn


#: SQLSTATEs of a session the server ended (shutting down, crashed, terminated by another
#: session, still starting): libpq may not mark the connection broken until its next use.
_ENDED_STATES = ("57P01", "57P02", "57P03")


def _session_ended(error: Exception) -> bool:
    state = str(getattr(error, "sqlstate", "") or "")
    return state.startswith("08") or state in _ENDED_STATES


#: Longest ``application_name`` PostgreSQL keeps (NAMEDATALEN - 1 bytes).
_APPLICATION_NAME_BYTES = 63


def session_name(name: str) -> str:
    """``name`` as an ``application_name``: as it is when it fits, else a prefix and a
    digest of the whole (two long names sharing a prefix must stay apart)."""
    if len(name.encode()) <= _APPLICATION_NAME_BYTES:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return name.encode()[:40].decode(errors="ignore") + "~" + digest


#: A password given as a query parameter (``?password=...``, libpq's keyword).
_PASSWORD_PARAMETER = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def redact(url: str) -> str:
    """``url`` without its password (``user:password@`` or ``?password=``), for
    messages and logs."""
    url = _PASSWORD_PARAMETER.sub(r"\1***", url)
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"


#: Statements that change nothing: run again on a new connection when the old one broke
#: under them (outside a transaction), so a reader does not see a server's restart.
_REREADABLE = ("SELECT", "BEGIN")


class Database:
    """One connection; statements run in autocommit unless inside :meth:`transaction`.

    A reconnecting database (``reconnect``, PostgreSQL only) replaces a broken
    connection on its next statement, and runs a read that broke under it once more;
    while no new connection can be opened, statements raise :class:`Unavailable`."""

    def __init__(
        self, connection: Any, dialect: Dialect, reopen: Callable[[], Any] | None = None,
        read_only: bool = False,
    ) -> None:  # fmt: skip
        self._conn = connection
        self.dialect = dialect
        self._depth = 0
        self._lock = threading.RLock()
        self._reopen = reopen
        self._read_only = read_only
        self._session_name = ""  # given again to a new connection

    @classmethod
    def open(cls, url: str, read_only: bool = False, reconnect: bool = False) -> Database:
        """``postgresql://...`` or a SQLite file (``sqlite:///path`` or a plain path).

        ``read_only``: the connection refuses every write (SQLite ``mode=ro``, a
        PostgreSQL session of read-only transactions), for a reader beside the ladder.
        ``reconnect``: survive the server's restarts (for readers; a runner must see
        :class:`ConnectionLost` itself, as another may have taken its lease over)."""
        if is_postgres_url(url):
            reopen = (lambda: _postgres(url, read_only)) if reconnect else None
            return cls(_postgres(url, read_only), POSTGRES, reopen, read_only)
        path = sqlite_path(url)
        if not path.parent.is_dir():
            raise DatabaseError(f"no directory {path.parent} for the database: create it first")
        if read_only:
            return cls(_sqlite_read_only(path), SQLITE)
        try:
            conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            _wal(conn)
            # FULL: a committed match survives power loss too, not only a killed process.
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as e:
            raise DatabaseError(f"cannot open the database {path}: {e}") from None
        return cls(conn, SQLITE)

    @property
    def connection(self) -> Any:
        """The driver's own connection, for what only one engine has (PostgreSQL's COPY)."""
        return self._conn

    def close(self) -> None:
        self._reopen = None  # closed on purpose: not to be reopened by a late statement
        self._conn.close()

    def name_session(self, name: str) -> None:
        """Let the server know this connection by ``name`` (PostgreSQL's
        ``application_name``: operators see it in ``pg_stat_activity``, and a runner
        that takes the lease over finds the old holder's sessions by it)."""
        if self.dialect is POSTGRES:
            self.execute("SELECT set_config('application_name', ?, false)", (session_name(name),))
            self._session_name = name

    def end_sessions(self, name: str) -> int:
        """End every other session named ``name`` (:meth:`name_session`) and so release
        its locks; return how many were ended. A no-op on SQLite, whose only lock is
        the file's and lives in the paused process itself.

        Raises :class:`DatabaseError` when the server refuses (another role's
        sessions need ``pg_signal_backend``)."""
        if self.dialect is not POSTGRES:
            return 0
        import psycopg

        try:
            rows = self.execute(
                "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity "
                "WHERE application_name = ? AND pid <> pg_backend_pid()",
                (session_name(name),),
            )
        except psycopg.Error as e:
            cause = " ".join(str(e).split())
            raise DatabaseError(
                f"cannot end the sessions of {name}: {cause} (give this role "
                "pg_signal_backend, or run every node as the same role)"
            ) from None
        return sum(1 for r in rows if r["ended"])

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor under the connection's lock, closed after. A driver error on a
        PostgreSQL connection that is broken now is :class:`ConnectionLost`; any other
        error is the statement's own."""
        with self._lock:
            self._replace_broken()
            try:
                cur = self._conn.cursor()
                try:
                    yield cur
                finally:
                    cur.close()
            except Exception as e:
                conn = self._conn
                if self.dialect is POSTGRES and (conn.broken or conn.closed or _session_ended(e)):
                    with contextlib.suppress(Exception):
                        conn.close()  # of no more use: a reconnecting database replaces it
                    cause = " ".join(str(e).split())
                    raise ConnectionLost(f"the connection to the store broke: {cause}") from None
                raise

    def _replace_broken(self) -> None:
        """Open a new connection in place of a broken one (a reconnecting database,
        outside a transaction: one that broke cannot be carried on elsewhere)."""
        conn = self._conn
        if self._reopen is None or self._depth or not (conn.broken or conn.closed):
            return
        try:
            self._conn = self._reopen()
        except DatabaseError as e:
            raise Unavailable(f"{UNAVAILABLE} ({e})") from None
        with contextlib.suppress(Exception):
            conn.close()
        if self._session_name:
            self.name_session(self._session_name)

    def execute(self, statement: str, params: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; return its rows (if it has any) as dicts."""
        with self._lock:
            try:
                return self._execute(statement, params)
            except Unavailable:
                raise
            except ConnectionLost:
                rereadable = self._read_only or statement.lstrip().upper().startswith(_REREADABLE)
                if self._reopen is None or self._depth or not rereadable:
                    raise
                return self._execute(statement, params)

    def _execute(self, statement: str, params: Sequence[Any]) -> list[Row]:
        with self._cursor() as cur:
            cur.execute(self.dialect.sql(statement), tuple(params))
            if cur.description is None:
                return []
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def execute_many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement per row of parameters (psycopg pipelines them: one round
        trip to the server, not one per row)."""
        if rows:
            with self._cursor() as cur:
                cur.executemany(self.dialect.sql(statement), [tuple(r) for r in rows])

    def one(self, statement: str, params: Sequence[Any] = ()) -> Row | None:
        rows = self.execute(statement, params)
        return rows[0] if rows else None

    def scalar(self, statement: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(statement, params)
        return None if row is None else next(iter(row.values()))

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """All statements inside commit together or not at all (nesting joins the outer)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self.execute(self.dialect.begin)
            self._depth = 1  # kept through COMMIT: one on a new connection would commit nothing
            try:
                yield self
            except BaseException:
                try:
                    self.execute("ROLLBACK")
                finally:
                    self._depth = 0
                raise
            try:
                self.execute("COMMIT")
            finally:
                self._depth = 0
