"""structlog set-up for the command line: events go to stderr, never stdout (which
carries the narration), and only warnings unless NIWA_LOG=info or debug."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import structlog


class _Stderr:
    """Writes each rendered event to whatever ``sys.stderr`` is *now* (it may be
    swapped after configuration, e.g. by a test's capture)."""

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


def _stderr_logger(*_: Any) -> _Stderr:
    return _Stderr()


def configure_cli_logging() -> None:
    level = getattr(logging, os.environ.get("NIWA_LOG", "warning").upper(), logging.WARNING)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )
