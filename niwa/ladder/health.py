"""Health for operators and their probes: is this process alive, does its store answer,
does this runner lead or stand by (docs/operations.md).

``/healthz`` answers 200 while the process serves at all. ``/readyz`` answers 200 only
when the store answered ``SELECT 1`` within :data:`READY_TIMEOUT_S` on a connection of
its own (so a check never waits behind the runner's work, nor shares its transaction),
else 503; its JSON body names the cause, and a runner's also says ``leading`` or
``standing_by``. ``niwa ladder serve --http`` serves these and ``/metrics`` on a port
of their own; ``niwa ladder web`` serves them beside its pages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from niwa.ladder import metrics
from niwa.ladder.db import Database, DatabaseError, redact
from niwa.ladder.http_server import serve_in_thread

#: How long a readiness check waits for the store to answer.
READY_TIMEOUT_S = 2.0
SEE_LOG = "its cause is in this node's log, event store_not_ready"

log = structlog.get_logger("niwa.ladder.health")


class StoreCheck:
    """Asks the store ``SELECT 1`` on a fresh connection, one check at a time: while a
    check hangs (a server that accepts but never answers), later ones wait for it
    (``timeout`` at most) instead of opening more connections behind it."""

    def __init__(
        self, db_url: str, timeout: float = READY_TIMEOUT_S, announce: bool = True
    ) -> None:
        self.db_url = db_url
        self.timeout = timeout
        #: log when the store stops or starts answering (False: another check does)
        self.announce = announce
        self._lock = threading.Lock()
        self._pending: Future[None] | None = None
        self._was_up: bool | None = None

    def problem(self) -> str:
        """Why the store is not ready ("" when it answered), in full."""
        return self.check()[1]

    def check(self) -> tuple[str, str]:
        """Why the store is not ready, as a public answer may say it (no host, user or
        database name: the web front's /readyz is public) and in full (for the log);
        both "" when it answered."""
        with self._lock:
            pending = self._pending
            if pending is None or pending.done():
                pending = self._pending = Future()
                threading.Thread(
                    target=self._ask, args=(pending,), daemon=True, name="niwa-store-check"
                ).start()
        public = problem = ""
        try:
            pending.result(self.timeout)
        except TimeoutError:
            public = problem = f"the store did not answer within {self.timeout:g} s"
        except DatabaseError as e:
            public, problem = f"the store cannot be reached ({SEE_LOG})", str(e)
        except Exception as e:  # the driver's own error: name it, never the password
            public = f"the store failed a trivial query ({SEE_LOG})"
            problem = f"the store failed a trivial query: {redact(str(e))}"
        self._note(problem)
        return public, problem

    def _ask(self, answer: Future[None]) -> None:
        try:
            db = Database.open(self.db_url, read_only=True)
            try:
                db.one("SELECT 1 AS one")
            finally:
                db.close()
        except BaseException as e:
            answer.set_exception(e)
        else:
            answer.set_result(None)

    def _note(self, problem: str) -> None:
        """One event when the store stops or starts answering, not one per check."""
        up = not problem
        metrics.DATABASE_UP.set(1 if up else 0)
        if not self.announce:
            return
        with self._lock:
            before, self._was_up = self._was_up, up
        if before is not False and not up:
            log.error("store_not_ready", problem=problem)
        elif before is False and up:
            log.info("store_ready")


#: What a runner is doing now ("leading", "standing_by", ...), for /readyz.
Role = Callable[[], str]


def routes(check: StoreCheck, role: Role | None = None) -> list[BaseRoute]:
    """``/healthz``, ``/readyz`` and ``/metrics``."""

    def healthz(request: Request) -> Response:
        return JSONResponse({"status": "alive"})

    def readyz(request: Request) -> Response:
        problem = check.check()[0]
        body: dict[str, Any] = {
            "status": "not ready" if problem else "ready",
            "database": problem or "ok",
        }
        if role is not None:
            body["runner"] = role()
        return JSONResponse(body, status_code=503 if problem else 200)

    return [
        # sync endpoints: Starlette runs them on a worker thread, so a slow store
        # never holds up the event loop (nor the pages beside them)
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics.exposition),
    ]


def app(check: StoreCheck, role: Role | None = None) -> Starlette:
    """The runner's HTTP listener: health and metrics, nothing else."""
    found = routes(check, role)
    application = Starlette(routes=found)
    application.add_middleware(metrics.PageTimer, routes=found)
    return application


def serve(
    db_url: str, listen: str, stop: threading.Event, role: Role | None = None
) -> tuple[str, threading.Thread]:
    """Serve :func:`app` on ``listen`` in a thread until ``stop``; return the address
    once listening (or raise what kept it from listening) and the thread."""
    return serve_in_thread(
        # gRPC health follows the store in this process already, and logs its changes
        app(StoreCheck(db_url, announce=False), role),
        listen,
        stop,
        "health and metrics",
    )
