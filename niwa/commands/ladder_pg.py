"""``niwa bench ladder --synthetic N --db postgresql://...``: the synthetic store on a
PostgreSQL server.

The SQLite store :mod:`niwa.commands.ladder_synthetic` fills is copied once into a
template database beside the one ``--db`` names (the role needs CREATEDB); each timed
run gets a fresh database made from that template, dropped after the run."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from niwa.commands.ladder_synthetic import SCHEMA
from niwa.ladder.db import Database, DatabaseError
from niwa.ladder.schema import migrate

#: The tables the synthetic store fills (parents first); ``id`` columns are numbered.
TABLES = ("owners", "bots", "matches", "match_seats", "results", "ratings", "schema_version")
NUMBERED = ("owners", "bots", "matches")


def database_url(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name``."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "postgres"


def _admin(url: str, statement: str) -> None:
    db = Database.open(url)
    try:
        db.execute(statement)
    except Exception as e:  # psycopg's errors: no CREATEDB right, a database in use
        raise DatabaseError(f"{statement}: {' '.join(str(e).split())}") from None
    finally:
        db.close()


def create_database(url: str, name: str, template: str = "template0") -> str:
    """A new database ``name`` beside ``url``'s (a copy of ``template``); its URL."""
    _admin(url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return database_url(url, name)


def drop_database(url: str, name: str) -> None:
    _admin(url, f'DROP DATABASE IF EXISTS "{name}"')


def copy_store(sqlite_path: Path, url: str) -> None:
    """Copy the synthetic SQLite store into the empty PostgreSQL database at ``url``,
    at the same schema version (its migrations run by the next open, as on SQLite)."""
    db = Database.open(url)
    source = sqlite3.connect(sqlite_path)
    try:
        migrate(db, target=SCHEMA)
        conn: Any = db.connection  # psycopg's COPY: the fast way in for 10^5-10^6 rows
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("DELETE FROM schema_version")
            for table in TABLES:
                names = [r[1] for r in source.execute(f"PRAGMA table_info({table})")]
                with cur.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN") as copy:
                    for row in source.execute(f"SELECT {', '.join(names)} FROM {table}"):
                        copy.write_row(row)
            for table in NUMBERED:
                cur.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) "
                    f"FROM {table}"
                )
            cur.execute("ANALYZE")
    finally:
        source.close()
        db.close()
