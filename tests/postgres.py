"""A throwaway PostgreSQL server for the tests, from Debian's ``postgresql`` binaries.

One server per test session (``initdb`` is the slow part); each test gets its own
database. The server listens on a unix socket in a private temporary folder only, trusts
local connections, and is stopped (its folder removed) when the session ends.
``initdb`` and ``pg_ctl`` refuse to run as root: as root they run as ``postgres``.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

MISSING = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: "
    "apt-get install postgresql (.ci/run does)"
)


def binaries() -> Path | None:
    """The folder of the newest installed server's initdb and pg_ctl, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _major(path: str) -> int:
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


class Server:
    """A running server; :meth:`database` makes a fresh, empty database."""

    def __init__(self, bin_dir: Path, durable: bool = False) -> None:
        self.bin_dir = bin_dir
        self._as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="niwa-pg-"))
        self.socket_dir = self.root / "socket"
        self.socket_dir.mkdir()
        if self._as_root:
            user = pwd.getpwnam("postgres")
            for path in (self.root, self.socket_dir):
                os.chown(path, user.pw_uid, user.pw_gid)
        self._names = itertools.count(1)
        self.data = self.root / "data"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "--encoding=UTF8", "--locale=C", "--no-sync")  # fmt: skip
        options = f"-k {self.socket_dir} -c listen_addresses='' -c max_connections=200"
        if not durable:  # a test server's data lives as long as the session
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._options = options
        self.start()

    def start(self) -> None:
        """Start the server (again, after :meth:`halt`: same data, same socket); return
        once it accepts connections."""
        # -t: how long pg_ctl waits for the server, generous for a busy machine
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", self._options, "-w", "-t", "300", "start")  # fmt: skip

    def halt(self) -> None:
        """Stop the server as an operator's restart does (its sessions are ended, its
        data kept): :meth:`start` brings it back."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "300", "stop")

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self.bin_dir / program), *args]
        if self._as_root:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {(done.stderr or done.stdout)[-2000:]}")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    def database(self, template: str = "template1") -> str:
        """A new database (a copy of ``template``); return its URL."""
        import psycopg

        name = f"niwa_test_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def running() -> Iterator[Server]:
    """A server of the caller's own, stopped after; skipped, saying why, only where the
    binaries are not installed."""
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip(MISSING)
    server = Server(bin_dir)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def down(server: Server) -> Iterator[None]:
    """``server`` stopped inside, started again after (as an operator's restart)."""
    server.halt()
    try:
        yield
    finally:
        server.start()
