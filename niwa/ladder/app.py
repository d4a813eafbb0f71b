"""A running ladder: the API server and the runner in one process."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import structlog

from niwa.ladder import health, logs, server, submission
from niwa.ladder.admission import ApiLimits
from niwa.ladder.reads import Reads
from niwa.ladder.runner import FinishedHook, Runner, Settings, Stop
from niwa.ladder.store import Store

#: Something served beside the API (the web pages: ``niwa ladder serve --web``): started
#: once the API listens, given the event that stops everything; returns a callable that
#: waits for it to end.
Beside = Callable[[threading.Event], Callable[[], None]]


def warm_boards(settings: Settings, log: structlog.stdlib.BoundLogger) -> None:
    """Read every game's leaderboard once, off the request path: a Plackett-Luce
    board's first fit in a process takes seconds at 100,000 matches, and the API's
    connections share it (:meth:`niwa.ladder.store.Ratings.pl_standing`), so a page
    asked meanwhile waits for this fit rather than starting its own."""
    started = time.perf_counter()
    try:
        store = Store.open(settings.db_url, settings.data_dir, reconnect=True)
        try:
            boards = Reads(store, settings.game_names(), trusted=True).leaderboards()
        finally:
            store.close()
    except Exception:  # a board that fails here fails on its page too, with the cause
        log.exception("leaderboards_warm_failed")
        return
    log.info("leaderboards_warmed", games=[b.game for b in boards],
             seconds=round(time.perf_counter() - started, 3))  # fmt: skip


def serve(
    settings: Settings,
    listen: str,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    play: bool = True,
    limits: ApiLimits | None = None,
    beside: Beside | None = None,
    on_finished: FinishedHook | None = None,
    http: str | None = None,
) -> int:
    """Serve the API and play matches until SIGINT/SIGTERM (or ``max_matches``, after
    which the API stays up). Prints ``serving on HOST:PORT`` once listening;
    ``on_finished`` is the runner's, told of each match it records; ``http``: where to
    serve health and metrics (:mod:`niwa.ladder.health`), printing ``http on URL``."""
    stop = Stop()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.signalled(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    store = Store.open(settings.db_url, settings.data_dir)
    try:  # before serving: no upload can be in flight yet
        submission.clean_leftovers(store)
    finally:
        store.close()
    grpc_server, port = server.start(
        settings.db_url, settings.data_dir, listen, tls_cert, tls_key,
        games=settings.game_names(), limits=limits,
    )
    host = listen.rsplit(":", 1)[0]
    print(f"serving on {host}:{port}", flush=True)
    log = structlog.get_logger("niwa.ladder").bind(node=settings.node)
    log.info("serving", address=f"{host}:{port}", tls=tls_cert is not None)
    threading.Thread(target=warm_boards, args=(settings, log), name="niwa-warm-boards",
                     daemon=True).start()  # fmt: skip
    waits: list[Callable[[], None]] = []
    runner = Runner(settings, on_finished)
    try:
        if http:
            address, thread = health.serve(
                settings.db_url, http, stop, lambda: runner.role if play else "not playing"
            )
            print(f"http on {address}", flush=True)
            waits.append(thread.join)
        if beside is not None:
            waits.append(beside(stop))
        if play:
            finished = runner.run(stop)
            log.info("runner_stopped", rated_matches=finished)
        while not stop.wait(0.5):
            pass
    finally:
        stop.set()
        grpc_server.stop(grace=1.0).wait()
        for wait in waits:
            wait()
    logs.say("stopped")  # on a line of its own, even after a progress line
    return 0
