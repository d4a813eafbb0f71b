"""A running ladder: the API server and the runner in one process."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import structlog

from niwa.ladder import logs, server, submission
from niwa.ladder.admission import Limits
from niwa.ladder.runner import FinishedHook, Runner, Settings, Stop
from niwa.ladder.store import Store

#: Something served beside the API (the web pages: ``niwa ladder serve --web``): started
#: once the API listens, given the event that stops everything; returns a callable that
#: waits for it to end.
Beside = Callable[[threading.Event], Callable[[], None]]


def serve(
    settings: Settings,
    listen: str,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    play: bool = True,
    limits: Limits | None = None,
    beside: Beside | None = None,
    on_finished: FinishedHook | None = None,
) -> int:
    """Serve the API and play matches until SIGINT/SIGTERM (or ``max_matches``, after
    which the API stays up). Prints ``serving on HOST:PORT`` once listening;
    ``on_finished`` is the runner's, told of each match it records."""
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
    waits: list[Callable[[], None]] = []
    try:
        if beside is not None:
            waits.append(beside(stop))
        if play:
            finished = Runner(settings, on_finished).run(stop)
            log.info("runner_stopped", rated_matches=finished)
        while not stop.wait(0.5):
            pass
    finally:
        stop.set()
        grpc_server.stop(grace=1.0).wait()
        for wait in waits:
            wait()
    logs.write_line("stopped")  # on a line of its own, even after a progress line
    return 0
