"""Serving the web app: Hypercorn's trio worker, beside the ladder or on its own.

``niwa ladder serve --web`` runs it in a thread of its own (the ladder's gRPC server and
runner are threads and processes, not trio tasks), stopped by the same event as the rest;
``niwa ladder web`` runs it in the main thread over a store opened read-only. Both also open
one connection that may write, for what owners do on the pages (sign in, upload).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path

from niwa.ladder.challenges import Challenges
from niwa.ladder.db import (
    ConnectionLost,
    Database,
    DatabaseError,
    is_postgres_url,
    redact,
    sqlite_path,
)
from niwa.ladder.health import StoreCheck
from niwa.ladder.http_server import serve_in_thread
from niwa.ladder.reads import Reads
from niwa.ladder.schema import LATEST, current_version
from niwa.ladder.store import Store
from niwa.web.app import create_app
from niwa.web.signin import SigninLimits


def open_read_only(url: str, data_dir: Path | None = None) -> Store:
    """The store at ``url`` through a connection that cannot write (no migration: a
    store of another schema version is refused with one line)."""
    return _open(url, data_dir, read_only=True)


def open_writer(url: str, data_dir: Path | None = None) -> Store:
    """The store at ``url`` through a connection that may write, for what the pages
    write: owners' sessions and uploads (:mod:`niwa.web.signin`). No migration either:
    the ladder's runner owns the schema. Refused with one line when it cannot write
    (a role with SELECT rights only, a file the process may not write)."""
    store = _open(url, data_dir, read_only=False)
    try:
        store.sessions.end_expired(time.time())  # a first write, and useful
    except ConnectionLost:
        store.close()
        raise
    except Exception as e:  # sqlite3's and psycopg's refusals alike
        store.close()
        raise DatabaseError(
            f"the web pages cannot write to {redact(url)} ({str(e).strip()[:200]}): owners' "
            "sign-in keeps its sessions there; give this process the ladder's database "
            "role (or a writable file), or serve the pages with --no-signin"
        ) from None
    return store


def _open(url: str, data_dir: Path | None, read_only: bool) -> Store:
    if data_dir is None:
        if is_postgres_url(url):
            raise DatabaseError("a PostgreSQL store needs --data DIR for its replays")
        data_dir = sqlite_path(url).parent
    db = Database.open(url, read_only=read_only, reconnect=True)  # outlives server restarts
    try:
        version = current_version(db)
    except Exception as e:  # sqlite3 and psycopg errors alike: no such table
        db.close()
        raise DatabaseError(f"{redact(url)} is not a ladder store: {e}") from None
    if version != LATEST:
        db.close()
        raise DatabaseError(
            f"the store has schema version {version}, this niwa reads {LATEST}: "
            + ("upgrade niwa" if version > LATEST else "open it once with niwa ladder serve")
        )
    return Store(db, data_dir)


def start(store: Store, listen: str, stop: threading.Event,
          games: Iterable[str] | None = None,
          check: StoreCheck | None = None,
          live_delay: int = 0, writer: Store | None = None,
          signin_limits: SigninLimits | None = None,
          challenges: Challenges | None = None) -> tuple[str, threading.Thread]:  # fmt: skip
    """Serve the pages over ``store`` in a thread; return the address once listening
    (or raise what kept it from listening) and the thread, which ends after ``stop``.
    ``check``: serve /healthz, /readyz and /metrics beside the pages; ``live_delay``:
    the steps a running match's watchers are kept behind (:mod:`niwa.web.live`);
    ``writer``: owners may sign in and upload (:func:`open_writer`); ``challenges``:
    and challenge bots (:mod:`niwa.web.challenge`)."""
    games = None if games is None else list(games)
    # The first leaderboard read in a process fits every game's ratings from all its
    # matches (seconds at 1,000 bots); done here, before listening, the first visitor
    # gets the kept fit, which later reads bring up to date match by match.
    Reads(store, games).leaderboards()
    app = create_app(store, games, check=check, live_delay=live_delay, writer=writer,
                     signin_limits=signin_limits, challenges=challenges)  # fmt: skip
    return serve_in_thread(app, listen, stop, "the web pages")
