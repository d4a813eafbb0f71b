"""structlog set-up for the command line: events go to stderr, never stdout (which
carries the narration), and only warnings unless NIWA_LOG=info or debug."""

from __future__ import annotations

import logging
import os
import sys

import structlog


def configure_cli_logging() -> None:
    level = getattr(logging, os.environ.get("NIWA_LOG", "warning").upper(), logging.WARNING)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )
