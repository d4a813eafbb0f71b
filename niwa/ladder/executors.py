"""Where the runner's matches run: a pool of local worker processes (the default) or a
Ray cluster (:mod:`niwa.ladder.ray_executor`, ``pip install 'niwa[ray]'``).

An executor takes a :class:`niwa.ladder.worker.Job` and returns a future of its
:class:`niwa.ladder.store.Finished`; by the time the future is done, the replay (and the
bots' logs) are at the job's paths on the runner's disk, wherever the match ran. The
runner alone commits results, so an executor never touches the store's tables.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Protocol

from niwa.errors import LadderError
from niwa.ladder.records import Finished
from niwa.ladder.worker import Job, init_worker, run_job
from niwa.referee.pool import spawn_pool

LOCAL, RAY = "local", "ray"
KINDS = (LOCAL, RAY)


class ExecutorLost(LadderError):
    """The executor lost its cluster (a Ray head gone): its running matches are not the
    bots' failures; the runner hands them back and starts a new executor."""


#: The bytes of the archive with this content hash (a submitted bot's files).
ArchiveReader = Callable[[str], bytes]


class Executor(Protocol):
    @property
    def slots(self) -> int:
        """Matches it can play at once now."""
        ...

    def submit(self, job: Job) -> Future[Finished]: ...

    def cancel(self) -> None:
        """Stop the matches running now, quickly (a stopping runner hands them back)."""
        ...

    def shutdown(self, wait: bool) -> None:
        """Stop; with ``wait``, let running matches end first. Queued ones are dropped."""
        ...


class LocalPool:
    """Spawned worker processes on this machine, one match each at a time; a worker
    that dies breaks the pool (``BrokenProcessPool``, which the runner recovers from)."""

    def __init__(
        self, workers: int, log_level: str, node: str, log_file: Path | None = None
    ) -> None:
        self._workers = workers
        self._pool = spawn_pool(workers, init_worker, (log_level, node, log_file))

    @property
    def slots(self) -> int:
        return self._workers

    def submit(self, job: Job) -> Future[Finished]:
        return self._pool.submit(run_job, job)

    def cancel(self) -> None:
        """Nothing to do: a local worker's result is only read by this runner, which
        stops collecting; each worker ends with its match, or with this process."""

    def shutdown(self, wait: bool) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=True)


def start(
    kind: str,
    workers: int,
    log_level: str,
    node: str,
    ray_address: str,
    archive: ArchiveReader,
    log_file: Path | None = None,
    waiting: Callable[[], None] | None = None,
) -> Executor:
    """The executor ``kind`` names (one of :data:`KINDS`); ``node``: the runner's name;
    ``log_file``: where local workers write their events (Ray keeps its workers' logs);
    ``waiting``: called about every second while a Ray driver joins its cluster (the
    runner renews its lease there; what it raises stops the joining)."""
    if kind == LOCAL:
        return LocalPool(workers, log_level, node, log_file)
    if kind == RAY:
        from niwa.ladder.ray_bridge import RayBridge  # ray is an optional extra
        from niwa.ladder.ray_executor import niwa_version

        return RayBridge(
            ray_address, log_level, archive, node, version=niwa_version(), waiting=waiting
        )
    raise ValueError(f"no executor {kind!r}; choose one of {', '.join(KINDS)}")
