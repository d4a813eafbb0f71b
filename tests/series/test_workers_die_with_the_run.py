"""A series' pool workers die with the run that started them, however it ends: a run
killed by SIGTERM or ``kill -9`` (the signal to the run alone, not its process group,
as a supervisor or ``kill PID`` sends it) runs no clean-up, and its idle workers would
wait for work for ever. Real ``niwa match``, real worker processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ladder.serving import alive, pool_worker, pool_workers
from tests.polling import wait_for


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
def test_a_killed_runs_workers_do_not_outlive_it(tmp_path: Path, how: signal.Signals) -> None:
    argv = [sys.executable, "-m", "niwa.cli", "match", "blossom", "--bot", "builtin:random",
            "--bot", "builtin:random", "--games", "100000", "--seed", "1", "--no-sandbox",
            "--time", "0.1s+1s", "--concurrency", "2"]  # fmt: skip
    run = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=tmp_path, start_new_session=True)  # fmt: skip
    workers: set[int] = set()
    try:
        wait_for("the run's two workers", lambda: len(pool_workers(run.pid)) == 2)
        workers = pool_workers(run.pid)
        run.send_signal(how)
        run.wait()
        wait_for("the workers to die", lambda: not any(alive(p) for p in workers))
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for pid in workers:  # what a failure left behind (still a worker: not a reused pid)
            if pool_worker(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
