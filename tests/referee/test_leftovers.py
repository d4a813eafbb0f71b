"""What a killed referee leaves is cleaned up; what a live one uses is not touched."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.engine import State
from niwa.referee import cgroups
from niwa.referee.leftovers import Counts, leftovers
from niwa.referee.replay import Step
from tests.polling import PATIENCE_S
from tests.referee.sandboxing import leftover_cgroups, moves_of, run_against_randoms

needs_cgroups = pytest.mark.skipif(
    os.geteuid() != 0 or not cgroups.bases(), reason="making cgroups needs root and cgroups"
)


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(["sleep", "300"])
    yield process
    process.kill()
    process.wait()


def make_group(owner: int, process: subprocess.Popen[bytes] | None) -> list[Path]:
    """A bot group as a referee with pid ``owner`` names it, in every hierarchy."""
    name = f"niwa-leftover-0-p{owner}-{uuid.uuid4().hex[:8]}"
    dirs = []
    for base in cgroups.bases():
        (base / name).mkdir()
        dirs.append(base / name)
        if process is not None:
            (base / name / "cgroup.procs").write_text(str(process.pid))
    return dirs


@needs_cgroups
def test_a_dead_referees_group_is_killed_and_removed(
    sleeper: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    dirs = make_group(dead_pid(), sleeper)
    counts = leftovers(temp_dir=tmp_path)
    assert not any(d.exists() for d in dirs)
    assert sleeper.wait(timeout=PATIENCE_S) == -9
    assert counts.cgroups >= 1 and counts.killed >= 1


@needs_cgroups
def test_a_live_referees_group_is_left_alone(
    sleeper: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    dirs = make_group(os.getpid(), sleeper)
    try:
        leftovers(temp_dir=tmp_path)
        assert all(d.is_dir() for d in dirs)
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()
        for d in dirs:
            cgroups.Cgroup({"x": d}, 1).kill_all_sync()
            d.rmdir()


def test_a_dead_referees_run_folder_goes_without_following_its_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not the bot's")
    dead = tmp_path / f"niwa-bot-p{dead_pid()}-abc123"
    deep = dead
    for _ in range(50):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "file").write_text("x")
    (deep / "link").symlink_to(outside)
    (dead / "dirlink").symlink_to(tmp_path)
    live = tmp_path / f"niwa-bot-p{os.getpid()}-def456"
    live.mkdir()
    (live / "bot.sock").write_text("")
    counts = leftovers(temp_dir=tmp_path, cgroup_root=tmp_path / "none")
    assert not dead.exists()
    assert outside.read_text() == "not the bot's"
    assert (live / "bot.sock").exists()
    assert (counts.run_dirs, counts.live) == (1, 1)


def test_a_dead_workers_partial_replays_go_and_a_live_ones_stay(tmp_path: Path) -> None:
    replays = tmp_path / "data" / "replays"
    replays.mkdir(parents=True)
    dead = replays / f"7.jsonl.{dead_pid()}.part"
    live = replays / f"8.jsonl.{os.getpid()}.part"
    done = replays / "6.jsonl"
    for f in (dead, live, done):
        f.write_text("{}\n")
    counts = leftovers(tmp_path / "data", temp_dir=tmp_path, cgroup_root=tmp_path / "none")
    assert (dead.exists(), live.exists(), done.exists()) == (False, True, True)
    assert counts.replays == 1


@needs_cgroups
def test_a_running_match_survives_a_clean_up_in_its_middle(tmp_path: Path) -> None:
    """The clean-up runs (on the real cgroup root and temp dir) while three sandboxed
    bots are in a match: their groups are live, so nothing is touched."""
    cleaned: list[Counts] = []

    def clean_once(step: Step, before: State, after: State) -> None:
        if not cleaned and step.kind == "decision":
            cleaned.append(leftovers())

    match_id = f"leftover{uuid.uuid4().hex[:6]}"
    outcome, replay = run_against_randoms(
        "builtin:random", tmp_path, on_step=clean_once, match_id=match_id
    )
    # 3 bots: a live group each (sandboxed bots have no run folder on the host)
    assert cleaned and cleaned[0].live >= 3
    for seat in range(3):
        assert {status for status, _, _ in moves_of(replay, seat)} == {"OK"}
    assert [s.status for s in outcome.seats] == ["ok"] * 3
    assert leftover_cgroups(match_id) == []


@needs_cgroups
def test_a_guardians_sweep_touches_only_its_own_referees_groups(
    sleeper: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    mine, other = dead_pid(), dead_pid()
    own = make_group(mine, None)
    others = make_group(other, sleeper)
    try:
        counts = leftovers(temp_dir=tmp_path, owner=mine)
        assert not any(d.exists() for d in own)
        assert all(d.exists() for d in others) and sleeper.poll() is None
        assert counts.cgroups == 1
    finally:
        leftovers(temp_dir=tmp_path, owner=other)
