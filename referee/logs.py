"""structlog set-up for the command line: events go to stderr, never stdout (which
carries the narration), and only warnings unless NIWA_LOG=info or debug."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

from referee.text import printable


class _Stderr:
    """Writes each rendered event to whatever ``sys.stderr`` is *now* (it may be
    swapped after configuration, e.g. by a test's capture)."""

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

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


def configure_cli_logging() -> None:
    level = getattr(logging, os.environ.get("NIWA_LOG", "warning").upper(), logging.WARNING)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            escape_strings,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )
