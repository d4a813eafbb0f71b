"""The pool of worker processes that play matches (the ladder's and a series').

Workers are *spawned*, never forked: a fork would copy whatever threads the parent
runs (the ladder's gRPC server, for one) half-way, and a fresh interpreter imports
only what a worker needs, the referee.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def cores() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def spawn_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, each running ``initializer(*initargs)``
    once when it starts."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initializer,
        initargs=initargs,
    )
