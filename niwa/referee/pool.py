"""The pool of worker processes that play matches (the ladder's and a series').

Workers are forked from a *fork server* (multiprocessing's forkserver): one process per
parent, started with the first pool, which imports the referee (trio, gRPC, the games:
about a CPU second) once and runs no thread. A new worker is then a fork of it, not a
fresh interpreter importing all that again. A worker is never forked from the parent
itself: that would copy whatever threads the parent runs (the ladder's gRPC server, for
one) half-way. It gets the parent's environment and working directory as they are when
the pool starts, as a spawned process would.

Workers die with the process that started them, however it ends: a parent killed by
SIGTERM or ``kill -9`` runs no clean-up, and its idle workers would wait for work for
ever. The chain: the parent holds the one write end of the fork server's "alive" pipe
(each worker closes the copy it inherits), so the server exits when the parent does,
and each worker is killed when the server exits (Linux's parent-death signal). Where
the fork server's pipe is not where this module expects it (another Python), workers
are spawned instead, each importing the referee itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver
from typing import Any

from niwa.referee.procstat import parent_of


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
    follows the *thread* that started the child: a fork server's one thread; a spawned
    pool's workers are started by the thread that submits to it."""
    # not Linux: a dead parent's idle workers linger
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


#: What the fork server imports once for all its workers: the referee and what it needs.
PRELOAD = ("niwa.referee.match",)


def _fork_server_usable() -> bool:
    """Whether a forked worker can find (and close) its copy of the server's alive pipe."""
    server = getattr(forkserver, "_forkserver", None)
    return hasattr(server, "_forkserver_alive_fd")


def _start_worker(
    forked: bool,
    owner: int,
    environ: dict[str, str],
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> None:
    if forked:
        _leave_fork_server(owner)
        os.environ.clear()
        os.environ.update(environ)
    else:
        die_with(owner)
    if initializer is not None:
        initializer(*initargs)


def _leave_fork_server(owner: int) -> None:
    server = os.getppid()
    # The alive pipe's write end must stay the owner's alone, or the server would
    # outlive it (and so would this worker): a worker never starts processes through it.
    state = forkserver._forkserver
    fd = state._forkserver_alive_fd  # type: ignore[attr-defined]
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        state._forkserver_alive_fd = None  # type: ignore[attr-defined]
    die_with(server)
    # the server is the owner's child while the owner lives: if not, the owner is gone
    with contextlib.suppress(OSError):
        if parent_of(server) != owner:
            os._exit(1)


def spawn_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes forked from this process's fork server (see the
    module's docstring), each dying with this one and running ``initializer(*initargs)``
    once when it starts."""
    forked = _fork_server_usable()
    context = multiprocessing.get_context("forkserver" if forked else "spawn")
    if forked:
        context.set_forkserver_preload(list(PRELOAD))  # only before the server's first start
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(forked, os.getpid(), dict(os.environ), initializer, initargs),
    )
