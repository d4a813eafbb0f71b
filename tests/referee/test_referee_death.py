"""A referee's bots do not outlive it: after ``kill -9`` of a referee whose bots are
frozen between their turns (the freezer holds a SIGKILL back until a thaw), its
guardian thaws and kills every one of its groups; an unsandboxed bot without a cgroup
dies by its parent-death signal. Real ``niwa play``, real bots, real cgroups; the
referee is killed while one bot thinks (and the others sit frozen)."""

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

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="per-bot cgroups need root")

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


def play_thinking(tmp_path: Path, *more: str, env: dict[str, str] | None = None
                  ) -> subprocess.Popen[bytes]:
    """``niwa play`` of a bot thinking for ten minutes and two random bots."""
    thinker = hostile_bot(tmp_path, "nap", "600000")
    argv = [
        sys.executable, "-m", "niwa.cli", "play", "blossom", "--seed", "5",
        "--bot", str(thinker), "--bot", "builtin:random", "--bot", "builtin:random",
        "--time", "900s+0s", "--quiet", *more,
    ]  # fmt: skip
    with (tmp_path / "out").open("wb") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=tmp_path, env=env)


def _processes_in(directory: Path) -> set[int]:
    """Processes whose working directory is ``directory`` (a bot's, unsandboxed)."""
    found = set()
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "cwd").resolve() == directory:
                found.add(int(entry.name))
    return found


def _connected(pid: int) -> bool:
    """Whether the referee has connected to the bot (its listening socket and one
    accepted): it is past READY, and a closed stdout can no longer end it."""
    sockets = 0
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                sockets += os.readlink(fd).startswith("socket:")
    return sockets >= 2


def test_an_unsandboxed_bot_without_a_cgroup_dies_with_its_referee(tmp_path: Path) -> None:
    empty = tmp_path / "no-cgroups"
    empty.mkdir()
    env = {**os.environ, "NIWA_CGROUP_ROOT": str(empty)}
    referee = play_thinking(tmp_path, "--no-sandbox", env=env)
    bot_dir = (tmp_path / "bot-nap").resolve()
    try:
        bots = wait_for("the thinking bot", lambda: _processes_in(bot_dir))
        wait_for("the referee to connect to it", lambda: all(_connected(p) for p in bots))
    finally:
        os.kill(referee.pid, signal.SIGKILL)
        referee.wait()
    wait_for("the bot to die", lambda: not any(alive(p) for p in bots))
    assert [p for p in bots if alive(p)] == []


@needs_root
@pytest.mark.parametrize("isolation", [[], ["--no-sandbox"]], ids=["sandbox", "no-sandbox"])
def test_bots_frozen_when_their_referee_is_killed_do_not_outlive_it(
    isolation: list[str], tmp_path: Path
) -> None:
    referee = play_thinking(tmp_path, *isolation)
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


def _guardians_of(referee: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if argv[1:4] == [b"-m", b"niwa.referee.guardian", str(referee).encode()]:
                found.append(int(entry.name))
    return found


@needs_root
def test_a_referee_that_ends_normally_leaves_no_guardian_behind(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "niwa.cli", "play", "blossom", "--seed", "5", "--quiet",
            "--bot", "builtin:random", "--bot", "builtin:random"]
    referee = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=tmp_path)
    guardians = wait_for("its guardian", lambda: _guardians_of(referee.pid))
    assert referee.wait() == 0
    wait_for("the guardian to finish", lambda: not any(alive(p) for p in guardians))
    assert [p for p in guardians if alive(p)] == []
