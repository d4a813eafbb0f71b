"""Sandbox uids: one per concurrent bot, across processes, freed even by kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from niwa.referee import uids

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="uid locks live in a root-only dir")

HOLD = """
import sys, time
from niwa.referee import uids
lease = uids.acquire()
print(lease.uid, flush=True)
time.sleep(3600)  # until the test kills it, however slow the machine
"""


def holder(env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    """Another process (a second ladder worker) holding one uid."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True, env=env,
        cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def test_leases_held_at_once_are_different_uids() -> None:
    a, b = uids.acquire(), uids.acquire()
    try:
        assert a.uid != b.uid
    finally:
        a.release()
        b.release()


def test_a_uid_another_process_holds_is_skipped_and_freed_by_kill_9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(uids.RANGE_ENV, "61000-61000")  # a range of one
    proc, uid = holder(dict(os.environ))
    try:
        assert uid == 61000
        with pytest.raises(uids.NoFreeUid, match="widen NIWA_SANDBOX_UIDS"):
            uids.acquire()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    lease = uids.acquire()
    assert lease.uid == 61000
    lease.release()


def test_a_malformed_range_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(uids.RANGE_ENV, "lots")
    with pytest.raises(ValueError, match="FIRST-LAST"):
        uids.uid_range()
