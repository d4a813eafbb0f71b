"""Serving an ASGI app (Starlette) with Hypercorn's trio worker in a thread of its own,
stopped by a threading.Event: the web pages (:mod:`niwa.web.server`) and the runner's
health and metrics listener (:mod:`niwa.ladder.health`) both run this way, beside the
ladder's gRPC server and runner, which are threads and processes, not trio tasks."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette

#: How often the server looks at the stop event (threading.Event cannot wake trio).
STOP_POLL_S = 0.2


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
