"""A referee's bots do not outlive it: after ``kill -9`` of a referee whose bots are
frozen between their turns (the freezer holds a SIGKILL back until a thaw), its
guardian thaws and kills every one of its groups. Real ``niwa play``, real sandboxed
bots, real cgroups; the referee is killed while one bot thinks and the others sit
frozen."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ladder.serving import alive
from tests.polling import wait_for
from tests.referee.sandboxing import cgroups_named, hostile_bot

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="per-bot cgroups need root")

def _groups(referee: int) -> list[Path]:
    return cgroups_named(f"niwa-*-p{referee}-*")


def _pids(groups: list[Path]) -> set[int]:
    found: set[int] = set()
    for g in groups:
        with contextlib.suppress(OSError):  # gone already
            found.update(int(p) for p in (g / "cgroup.procs").read_text().split())
    return found


def _frozen(groups: list[Path]) -> bool:
    for g in groups:
        try:
            if (g / "freezer.state").read_text().strip() == "FROZEN":
                return True
            if "frozen 1" in (g / "cgroup.events").read_text().splitlines():
                return True
        except OSError:
            pass
    return False


@pytest.mark.parametrize("isolation", [[], ["--no-sandbox"]], ids=["sandbox", "no-sandbox"])
def test_bots_frozen_when_their_referee_is_killed_do_not_outlive_it(
    isolation: list[str], tmp_path: Path
) -> None:
    thinker = hostile_bot(tmp_path, "nap", "600000")  # thinks for ten minutes
    argv = [
        sys.executable, "-m", "niwa.cli", "play", "blossom", "--seed", "5",
        "--bot", str(thinker), "--bot", "builtin:random", "--bot", "builtin:random",
        "--time", "900s+0s", "--quiet", *isolation,
    ]  # fmt: skip
    with (tmp_path / "out").open("wb") as out:
        referee = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True, cwd=tmp_path)
    try:
        wait_for("three groups, one frozen",
                 lambda: len(_groups(referee.pid)) >= 3 and _frozen(_groups(referee.pid)))
        bots = _pids(_groups(referee.pid))
        assert len(bots) >= 3  # sh/bwrap and each bot of three seats at least
    finally:
        os.kill(referee.pid, signal.SIGKILL)
        referee.wait()
    wait_for("the bots to die", lambda: not any(alive(p) for p in bots))
    wait_for("the groups to go", lambda: _groups(referee.pid) == [])
    assert [p for p in bots if alive(p)] == []
    assert _groups(referee.pid) == []
