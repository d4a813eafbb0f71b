"""Every log event of a block, whatever an earlier test configured: ``capture_logs``
alone keeps the configured level filter, so a test run after one that set the CLI's
warning level would see none of the referee's info events."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, MutableMapping
from typing import Any

import structlog
from structlog.testing import capture_logs


@contextlib.contextmanager
def every_event() -> Iterator[list[MutableMapping[str, Any]]]:
    saved = structlog.get_config()
    structlog.reset_defaults()
    try:
        with capture_logs() as events:
            yield events
    finally:
        structlog.configure(**saved)
