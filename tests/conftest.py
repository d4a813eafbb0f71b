"""Fixtures shared by every test package."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from tests import postgres
from tests.postgres import Server

JS_BOT = Path(__file__).resolve().parents[1] / "examples" / "js-bot"


@pytest.fixture(autouse=True)
def _structlog_as_it_was() -> Iterator[None]:
    """Each test gets back the logging set-up it started with: a command run in process
    (``niwa ladder demo``, ``serve``) configures structlog for the whole process, and a
    later test's stderr would carry that command's events."""
    saved = structlog.get_config()
    try:
        yield
    finally:
        structlog.configure(**saved)


@pytest.fixture(scope="session")
def js_bot() -> Path:
    """The Node example bot, its dependencies installed: ``npm ci`` from its lock file
    the first time (a fresh clone has no ``node_modules``), so ``tox`` needs nothing
    run before it. Under pytest-xdist each worker asks: a lock lets one install while
    the others wait (``npm ci`` first deletes ``node_modules``, which another worker's
    bot may be running from)."""
    with _held(f"niwa-js-bot-{hashlib.sha256(bytes(JS_BOT)).hexdigest()[:16]}.lock"):
        if (JS_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
            return JS_BOT
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            pytest.fail(
                "the tests of examples/js-bot need Node.js and npm: install them "
                "(apt-get install nodejs npm) and run the tests again"
            )
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=JS_BOT, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.fail(f"npm ci in {JS_BOT} failed: {done.stderr.strip()[-2000:]}")
        return JS_BOT


@contextlib.contextmanager
def _held(name: str) -> Iterator[None]:
    """An exclusive lock on the file ``name`` in the system's temp dir, across processes."""
    with open(Path(tempfile.gettempdir()) / name, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    """One PostgreSQL server for the session (see tests/postgres.py); skipped, saying
    why, only where its binaries are not installed."""
    with postgres.running() as server:
        yield server
