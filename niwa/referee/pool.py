"""The pool of worker processes that play matches (the ladder's and a series').

Workers are *spawned*, never forked: a fork would copy whatever threads the parent
runs (the ladder's gRPC server, for one) half-way, and a fresh interpreter imports
only what a worker needs, the referee. They die with the process that started them,
however it ends: a parent killed by SIGTERM or ``kill -9`` runs no clean-up, and its
idle workers would wait for work for ever.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def cores() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:
    """In a child process: be killed when ``parent`` dies, even by ``kill -9`` (Linux's
    parent-death signal; the child's bots go with it: bwrap's --die-with-parent and the
    referee's guardian), or exit now if it died before the signal was set. The signal
    follows the *thread* that started the child: a pool's workers are started by the
    thread that submits to it."""
    # not Linux: a dead parent's idle workers linger
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def _start_worker(
    parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]
) -> None:
    die_with(parent)
    if initializer is not None:
        initializer(*initargs)


def spawn_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, each dying with this one and running
    ``initializer(*initargs)`` once when it starts."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )
