"""Structured logs: JSON lines when stderr is not a terminal, readable lines when it is."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

from referee.logs import escape_strings


def configure(level: str = "info", json: bool | None = None, stream: Any = None) -> None:
    """Set up structlog for this process (the ladder and each of its workers)."""
    out = stream or sys.stderr
    use_json = not out.isatty() if json is None else json
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
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
