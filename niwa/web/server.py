"""Serving the web app: Hypercorn's trio worker, beside the ladder or on its own.

``niwa ladder serve --web`` runs it in a thread of its own (the ladder's gRPC server and
runner are threads and processes, not trio tasks), stopped by the same event as the rest;
``niwa ladder web`` runs it in the main thread over a store opened read-only.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette

from niwa.ladder.db import Database, DatabaseError, is_postgres_url, redact, sqlite_path
from niwa.ladder.health import StoreCheck
from niwa.ladder.reads import Reads
from niwa.ladder.schema import LATEST, current_version
from niwa.ladder.store import Store
from niwa.web.app import create_app

#: How often the server looks at the stop event (threading.Event cannot wake trio).
STOP_POLL_S = 0.2


def open_read_only(url: str, data_dir: Path | None = None) -> Store:
    """The store at ``url`` through a connection that cannot write (no migration: a
    store of another schema version is refused with one line)."""
    if data_dir is None:
        if is_postgres_url(url):
            raise DatabaseError("a PostgreSQL store needs --data DIR for its replays")
        data_dir = sqlite_path(url).parent
    db = Database.open(url, read_only=True, reconnect=True)  # outlives server restarts
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


def config(listen: str) -> Config:
    cfg = Config()
    cfg.bind = [listen]
    cfg.accesslog = None  # each request's time is a metric (niwa.ladder.metrics.PageTimer)
    # Hypercorn's own messages through the standard logging module, which the ladder's
    # log set-up hands to structlog (one JSON event a line), not a stream of its own
    cfg.errorlog = logging.getLogger("hypercorn.error")
    cfg.loglevel = "WARNING"
    cfg.graceful_timeout = 1.0
    return cfg


async def run(app: Starlette, listen: str, stop: threading.Event,
              started: Callable[[list[str]], None]) -> None:  # fmt: skip
    """Serve until ``stop`` is set; ``started`` gets the addresses once listening."""

    async def stopped() -> None:
        while not stop.is_set():
            await trio.sleep(STOP_POLL_S)

    async with trio.open_nursery() as nursery:
        asgi: Any = app  # hypercorn types its own ASGI protocol, Starlette its own
        binds = await nursery.start(partial(serve, asgi, config(listen), shutdown_trigger=stopped))
        started(binds)


def start(store: Store, listen: str, stop: threading.Event,
          games: Iterable[str] | None = None,
          check: StoreCheck | None = None) -> tuple[str, threading.Thread]:  # fmt: skip
    """Serve the pages over ``store`` in a thread; return the address once listening
    (or raise what kept it from listening) and the thread, which ends after ``stop``.
    ``check``: serve /healthz, /readyz and /metrics beside the pages."""
    games = None if games is None else list(games)
    # The first leaderboard read in a process fits every game's ratings from all its
    # matches (seconds at 1,000 bots); done here, before listening, the first visitor
    # gets the kept fit, which later reads bring up to date match by match.
    Reads(store, games).leaderboards()
    return serve_in_thread(create_app(store, games, check=check), listen, stop, "the web pages")


def serve_in_thread(
    app: Starlette, listen: str, stop: threading.Event, what: str
) -> tuple[str, threading.Thread]:
    """Serve ``app`` in a thread until ``stop``; return the address once listening (or
    raise what kept it from listening, naming ``what`` was to be served) and the thread."""
    ready: queue.Queue[list[str] | BaseException] = queue.Queue()

    def thread() -> None:
        try:
            trio.run(run, app, listen, stop, ready.put)
        except BaseException as e:  # handed to the caller, which raises it
            error = sole(e)
            if isinstance(error, OSError):
                cause = error.strerror or error
                error = OSError(f"cannot serve {what} on {listen}: {cause}")
            ready.put(error)

    worker = threading.Thread(target=thread, name="niwa-web", daemon=True)
    worker.start()
    answer = ready.get()
    if isinstance(answer, BaseException):
        raise answer
    return address(answer), worker


def sole(error: BaseException) -> BaseException:
    """The one error inside nested groups of one (how trio's nurseries raise it)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def address(binds: list[str]) -> str:
    """The first bound URL (with the real port when asked for port 0)."""
    return binds[0]
