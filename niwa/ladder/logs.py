"""Structured logs for the ladder and its workers: the referee's one set-up
(:func:`niwa.referee.logs.configure`; JSON lines when stderr is not a terminal, or in a file
with only warnings and errors on stderr).

A server process (``niwa ladder serve``, ``niwa ladder web``) also hands what other
libraries log through the standard ``logging`` module (Hypercorn's errors, Ray's
driver, Python's warnings) to structlog, so that its stderr holds nothing but its own
events: one JSON object a line in JSON mode, each naming the node.
"""

from __future__ import annotations

import logging
from pathlib import Path

import structlog

from niwa.referee.logs import configure, json_events, write_line

__all__ = ["FORMATS", "adopt", "configure", "configure_server", "say", "write_line"]

#: ``--log-format``: auto is JSON unless stderr is a terminal.
FORMATS = ("auto", "json", "console")
#: The least important message of another library that is logged: their info is
#: chatter about their own start (Ray's "connecting to ...").
LIBRARY_LEVEL = logging.WARNING


class _ToStructlog(logging.Handler):
    """A standard-library record as a structlog event (its logger's name kept)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            method = record.levelname.lower()
            log = structlog.get_logger(record.name)
            write = getattr(log, method if method in _METHODS else "warning")
            write(record.getMessage(), logger=record.name, exc_info=record.exc_info or False)
        except Exception:  # a logging failure must not end the server
            self.handleError(record)


_METHODS = frozenset({"debug", "info", "warning", "error", "critical"})
#: Whether :func:`say` logs an event rather than writing a plain line.
_say_as_event = False


def configure_server(
    level: str, log_format: str = "auto", file: Path | None = None, node: str = ""
) -> None:
    """Logs of a server process: structlog as :func:`configure` sets it up (``log_format``
    one of :data:`FORMATS`), every event naming ``node``, and the standard library's
    records (at :data:`LIBRARY_LEVEL` and above) handed to it."""
    global _say_as_event
    json = None if log_format == "auto" else log_format == "json"
    configure(level, json=json, file=file, node=node)
    # With a log file stderr is a person's console (warnings, errors, "stopped"), unless
    # JSON was asked for by name.
    _say_as_event = json_events() and (file is None or log_format == "json")
    route_libraries()


def route_libraries() -> None:
    """Hand the standard library's records (at :data:`LIBRARY_LEVEL` and above) to
    structlog; also the Ray driver's child process does, whose events the runner logs."""
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if not isinstance(h, _ToStructlog)]
    root.addHandler(_ToStructlog())
    root.setLevel(LIBRARY_LEVEL)
    logging.captureWarnings(True)  # warnings.warn's text, as an event too


def adopt(name: str) -> None:
    """In a server process, send the records of the library logger ``name`` to structlog
    like every other library's: Ray gives its logger a plain-text handler of its own on
    import (and no propagation), which would put non-JSON lines on stderr."""
    if not any(isinstance(h, _ToStructlog) for h in logging.getLogger().handlers):
        return  # not a server process: the library keeps its own set-up
    logger = logging.getLogger(name)
    logger.handlers = []
    logger.propagate = True
    logger.setLevel(logging.NOTSET)  # the root's level: warnings and errors


def say(message: str) -> None:
    """A line for the person watching (``stopped``): an event when a server's stderr is
    JSON events, so a machine reading it gets nothing else."""
    if _say_as_event:
        structlog.get_logger("niwa.ladder").info(message)
    else:
        write_line(message)
