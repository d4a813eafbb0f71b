"""Running ``niwa ladder serve`` as a real process for the end-to-end and crash tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from niwa.referee.procstat import parent_of, state_of
from tests.polling import PATIENCE_S as PATIENCE_S  # where the ladder tests import them
from tests.polling import wait_for as wait_for


def start_ladder(db: Path | str, log: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """Start a ladder serving on a free port; return the process and its address.
    ``db``: a SQLite file or a store's URL (a PostgreSQL one needs ``--data`` in ``extra``)."""
    command = [
        sys.executable, "-m", "niwa", "ladder", "serve", "--db", str(db),
        "--listen", "127.0.0.1:0", "--workers", "2", "--log-level", "info", *extra,
    ]  # fmt: skip
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=log.open("a"),
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return proc, printed_address(proc, r"serving on (\S+)", log)


def printed_address(proc: subprocess.Popen[str], pattern: str, log: Path) -> str:
    """The address the process prints next on stdout (``pattern``'s group); if it
    prints something else, the process is killed and the test fails with its log."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(pattern, line)
    if found is None:
        proc.kill()
        raise AssertionError(f"expected {pattern!r}, got {line!r}; log:\n{log.read_text()}")
    return found.group(1)


def stop(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM, and wait; SIGKILL only when it does not end in time."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=PATIENCE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def pool_worker(pid: int) -> bool:
    """Whether ``pid`` is a pool worker (``niwa.referee.pool``): a fork of the fork
    server (which has the same command line, and is not a worker)."""
    try:
        return _fork_server(pid) and _fork_server(parent_of(pid))
    except (OSError, ValueError):  # gone
        return False


def _fork_server(pid: int) -> bool:
    return b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()


def pool_workers(pid: int) -> set[int]:
    """The pool workers among ``pid``'s descendants."""
    return {child for child in children(pid) if pool_worker(child)}


def alive(pid: int) -> bool:
    try:
        return state_of(pid) != "Z"
    except OSError:
        return False
