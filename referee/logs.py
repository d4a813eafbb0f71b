"""The one structlog set-up, for every process: the command line (events on stderr,
never stdout, which carries the narration; warnings only unless NIWA_LOG=info or
debug), the ladder and its workers (:mod:`ladder.logs`). JSON lines when the stream is
not a terminal (the ladder), readable lines otherwise."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import MutableMapping
from typing import Any

import structlog

from referee.text import printable

#: One event is one line: ``print`` writes the text and its newline apart, and another
#: thread's event could land between them (two events on one line of a ladder's log).
_WRITING = threading.Lock()


class _Stderr:
    """Writes each rendered event to whatever ``sys.stderr`` is *now* (it may be
    swapped after configuration, e.g. by a test's capture), whole lines at a time."""

    def msg(self, message: str) -> None:
        with _WRITING:
            stream = sys.stderr
            stream.write(message + "\n")
            stream.flush()

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


def _stderr_logger(*_: Any) -> _Stderr:
    return _Stderr()


def escape_strings(_: Any, __: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    """structlog processor for renderers that print strings raw (the console one): a
    bot's name, detail or stderr line must not reach the terminal as escape sequences.
    (Other values are rendered with repr, which escapes them already.)"""
    out = {k: printable(v) if isinstance(v, str) else v for k, v in event.items()}
    if isinstance(event.get("exception"), str):  # a traceback keeps its lines
        out["exception"] = "\n".join(printable(line) for line in event["exception"].split("\n"))
    return out


def configure(level: str = "info", json: bool | None = None, stream: Any = None) -> None:
    """Set up structlog for this process. ``json``: None to decide by whether the stream
    is a terminal. ``stream``: None for whatever ``sys.stderr`` is at each event."""
    use_json = not (stream or sys.stderr).isatty() if json is None else json
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *(() if use_json else (escape_strings,)),  # JSON escapes control characters
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.WARNING)
        ),
        logger_factory=_stderr_logger if stream is None else structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


def configure_cli_logging() -> None:
    """Readable lines on stderr, at the level NIWA_LOG names (warning by default)."""
    configure(os.environ.get("NIWA_LOG", "warning"), json=False)
