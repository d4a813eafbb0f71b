"""Reading /proc/PID/stat (niwa.referee.procstat), for the pool, the bots' CPU and the
benchmarks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from niwa.referee.procstat import parent_of, start_ticks, stat_fields, state_of


def test_a_process_s_parent_is_the_one_that_started_it() -> None:
    assert parent_of(os.getpid()) == os.getppid()


def test_a_running_process_is_not_a_zombie_and_a_waited_for_child_is_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert state_of(os.getpid()) in {"R", "S", "D"}
    with pytest.raises(OSError):
        state_of(child.pid)


def test_a_command_name_with_parentheses_and_spaces_does_not_shift_the_fields(
    tmp_path: Path,
) -> None:
    odd = tmp_path / "a) b (c"
    odd.symlink_to(sys.executable)
    waits = "import sys; sys.stdin.read()"
    child = subprocess.Popen([str(odd), "-c", waits], stdin=subprocess.PIPE)
    try:
        assert ") b (c" in Path(f"/proc/{child.pid}/stat").read_text()  # the name is there
        assert parent_of(child.pid) == os.getpid()
        assert state_of(child.pid) in {"R", "S", "D"}
        assert start_ticks(child.pid) >= start_ticks(os.getpid())
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()


def test_cpu_of_reaped_children_counts_only_when_asked() -> None:
    """A child that burns CPU and is waited for adds to the parent's fields 16-17 only."""
    probe = (
        "import os, subprocess, sys\n"
        "from niwa.referee.procstat import cpu_seconds\n"
        "me = os.getpid()\n"
        "own, total = cpu_seconds(me), cpu_seconds(me, reaped_children=True)\n"
        "subprocess.run([sys.executable, '-c', 'n = 0\\nwhile n < 3_000_000: n += 1'])\n"
        "print(cpu_seconds(me) - own, cpu_seconds(me, reaped_children=True) - total)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    own, with_children = (float(x) for x in out.stdout.split())
    # The parent only waited: the child's counting shows with its reaped children alone.
    assert with_children > own


def test_the_fields_start_after_the_command_name() -> None:
    fields = stat_fields(os.getpid())
    assert fields[0].isalpha() and len(fields[0]) == 1  # the state, proc(5) field 3
    assert int(fields[1]) == os.getppid()  # field 4
    assert len(fields) >= 50  # Linux 3.5 and later
