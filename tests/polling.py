"""Waiting in tests: for a condition, never for a time. A busy machine (load 17 on two
cores has been seen) makes everything slow but nothing wrong, so a test polls until
what it needs holds, and gives up only after a deadline far past any normal wait; the
deadline bounds a hang, it does not measure speed."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: How long a test waits for something that normally takes a second or two.
PATIENCE_S = 120.0


def wait_for(
    what: str, probe: Callable[[], T | None], seconds: float = PATIENCE_S, every: float = 0.2
) -> T:
    """Poll ``probe`` until it returns something true; that value. Fails naming ``what``
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what} after {seconds:.0f} s")
        time.sleep(every)
