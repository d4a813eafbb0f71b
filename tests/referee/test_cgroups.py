"""Per-bot cgroups on v1 (this machine's hierarchies, for real) and the v2 code path
(against the cgroup2 hierarchy this machine has, without controllers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from niwa.referee.cgroups import (
    DEFAULT_ROOT,
    REQUIRED,
    Cgroup,
    CgroupUnavailable,
    LimitsUnavailable,
    check_required,
    is_v2,
    probe,
)
from niwa.referee.sandbox import BotLimits
from tests.polling import wait_for

SPIN = [sys.executable, "-c", "while True: pass"]
SPIN_WITH_CHILD = [
    sys.executable, "-c",
    "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'while True: pass']); "
    "exec('while True: pass')",
]  # fmt: skip

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making cgroups needs root here")


def spawn_in(group: Cgroup, argv: list[str]) -> subprocess.Popen[bytes]:
    """Start argv inside the group (it joins before exec, like the launcher)."""
    joins = " && ".join(f"echo $$ > {f}" for f in group.procs_files())
    return subprocess.Popen(["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *argv])


def assert_frozen_then_thawed(group: Cgroup) -> None:
    """A spinning group: its CPU stops growing while frozen, grows again once thawed."""
    start = group.cpu_seconds()
    assert start is not None
    wait_for("the spinner used CPU", lambda: (group.cpu_seconds() or 0) > start, every=0.01)
    group.freeze()
    wait_for("the group froze", group.frozen, every=0.01)
    frozen_at = group.cpu_seconds()
    time.sleep(0.3)
    assert group.cpu_seconds() == frozen_at
    group.thaw()
    assert not group.frozen()
    wait_for("it ran again", lambda: (group.cpu_seconds() or 0) > (frozen_at or 0), every=0.01)


@pytest.fixture
def made() -> Iterator[list[Cgroup]]:
    """Groups a test made; killed and removed afterwards whatever happened."""
    groups: list[Cgroup] = []
    yield groups
    for group in groups:
        trio.run(group.kill_all)
        trio.run(group.remove)


# -- v1, for real ---------------------------------------------------------------------

v1 = pytest.mark.skipif(
    is_v2(DEFAULT_ROOT) or not (DEFAULT_ROOT / "memory" / "cgroup.procs").exists(),
    reason="cgroup v1 is not mounted under /sys/fs/cgroup",
)


@needs_root
@v1
def test_a_v1_group_gets_every_limit(made: list[Cgroup]) -> None:
    group = Cgroup.create("t-v1", BotLimits(memory_mib=256, tasks=32, cpus=0.5))
    made.append(group)
    assert (group.version, group.missing) == (1, ())
    assert set(group.dirs) == set(REQUIRED)
    assert (group.dirs["memory"] / "memory.limit_in_bytes").read_text().strip() == str(256 << 20)
    assert (group.dirs["pids"] / "pids.max").read_text().strip() == "32"
    assert (group.dirs["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "50000"
    assert f"-p{os.getpid()}-" in group.dirs["memory"].name  # the owner, for the clean-up


@needs_root
@v1
def test_a_v1_group_freezes_and_thaws_a_spinning_process(made: list[Cgroup]) -> None:
    group = Cgroup.create("t-v1-freeze", BotLimits())
    made.append(group)
    spinner = spawn_in(group, SPIN)
    try:
        assert_frozen_then_thawed(group)
    finally:
        spinner.kill()
        spinner.wait()


@needs_root
@v1
def test_a_frozen_v1_group_is_killed_to_the_last_process(made: list[Cgroup]) -> None:
    group = Cgroup.create("t-v1-kill", BotLimits())
    made.append(group)
    parent = spawn_in(group, SPIN_WITH_CHILD)
    wait_for("parent and child run", lambda: len(group.pids()) == 2, every=0.01)
    group.freeze()
    wait_for("the group froze", group.frozen, every=0.01)
    trio.run(group.kill_all)
    assert group.pids() == set()
    assert parent.wait() == -signal.SIGKILL


@needs_root
@v1
def test_a_removed_v1_group_is_gone_from_every_hierarchy() -> None:
    group = Cgroup.create("t-v1-rm", BotLimits())
    trio.run(group.remove)
    assert not any(d.exists() for d in group.dirs.values())


# -- v2: the code path, against this machine's cgroup2 hierarchy ----------------------


@pytest.fixture(scope="module")
def v2_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cgroup2 hierarchy: /sys/fs/cgroup when unified, the hybrid mode's
    /sys/fs/cgroup/unified, or a fresh cgroup2 mount if the kernel allows one."""
    for candidate in (DEFAULT_ROOT, DEFAULT_ROOT / "unified"):
        if is_v2(candidate) and os.access(candidate, os.W_OK):
            yield candidate
            return
    mount = tmp_path_factory.mktemp("cgroup2")
    done = subprocess.run(["mount", "-t", "cgroup2", "none", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"no writable cgroup2 hierarchy: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def v2_controllers(root: Path) -> set[str]:
    return set((root / "cgroup.controllers").read_text().split())


@needs_root
def test_a_v2_group_lists_the_controllers_it_lacks(v2_root: Path, made: list[Cgroup]) -> None:
    group = Cgroup.create("t-v2", BotLimits(), v2_root)
    made.append(group)
    assert group.version == 2 and group.dirs["v2"].is_dir()
    lacking = {"memory", "pids", "cpu"} - v2_controllers(v2_root)
    assert set(group.missing) == lacking  # accounting and the freezer are core in v2
    if lacking:
        assert "limit" in probe(BotLimits(), v2_root)


@needs_root
def test_a_v2_group_accounts_cpu_and_freezes(v2_root: Path, made: list[Cgroup]) -> None:
    group = Cgroup.create("t-v2-freeze", BotLimits(), v2_root)
    made.append(group)
    spinner = spawn_in(group, SPIN)
    try:
        wait_for("the spinner joined", lambda: group.pids() == {spinner.pid}, every=0.01)
        assert_frozen_then_thawed(group)
    finally:
        spinner.kill()
        spinner.wait()


@needs_root
def test_a_frozen_v2_group_is_killed_through_cgroup_kill(
    v2_root: Path, made: list[Cgroup]
) -> None:
    group = Cgroup.create("t-v2-kill", BotLimits(), v2_root)
    made.append(group)
    assert (group.dirs["v2"] / "cgroup.kill").exists()
    parent = spawn_in(group, SPIN_WITH_CHILD)
    wait_for("parent and child run", lambda: len(group.pids()) == 2, every=0.01)
    group.freeze()
    wait_for("the group froze", group.frozen, every=0.01)
    group.signal_kill()  # one write to cgroup.kill
    wait_for("the group emptied", lambda: group.pids() == set(), every=0.01)
    assert parent.wait() == -signal.SIGKILL


@needs_root
def test_a_removed_v2_group_is_gone(v2_root: Path) -> None:
    group = Cgroup.create("t-v2-rm", BotLimits(), v2_root)
    trio.run(group.remove)
    assert not group.dirs["v2"].exists()


@needs_root
def test_a_v2_group_sets_memory_and_task_limits(v2_root: Path, made: list[Cgroup]) -> None:
    if not {"memory", "pids"} <= v2_controllers(v2_root):
        pytest.skip(
            "the cgroup2 hierarchy here has no memory and pids controllers (hybrid mode: "
            "they are bound to v1), so memory.max and pids.max cannot be tested"
        )
    group = Cgroup.create("t-v2-limits", BotLimits(memory_mib=256, tasks=32), v2_root)
    made.append(group)
    assert (group.dirs["v2"] / "memory.max").read_text().strip() == str(256 << 20)
    assert (group.dirs["v2"] / "pids.max").read_text().strip() == "32"


# -- no cgroups -----------------------------------------------------------------------


def test_an_empty_root_has_no_cgroup(tmp_path: Path) -> None:
    with pytest.raises(CgroupUnavailable, match="no cgroup hierarchy"):
        Cgroup.create("t-none", BotLimits(), tmp_path)


def test_required_limits_name_what_is_missing_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(LimitsUnavailable) as e:
        check_required(BotLimits(), tmp_path)
    text = str(e.value)
    assert "no memory limit" in text and "freezer" in text
    assert "run the referee as root" in text and "Delegate=yes" in text
    assert "\n" not in text


@needs_root
@v1
def test_a_v1_root_without_the_freezer_is_not_enough(tmp_path: Path) -> None:
    for controller in ("memory", "pids", "cpu", "cpuacct"):  # everything but the freezer
        (tmp_path / controller).symlink_to(DEFAULT_ROOT / controller)
    assert probe(BotLimits(), tmp_path) == "cgroup v1 without freezer"
    with pytest.raises(LimitsUnavailable, match="without freezer"):
        check_required(BotLimits(), tmp_path)


def _memory_files(d: Path, **files: str) -> Path:
    d.mkdir()
    for name, text in files.items():
        (d / name.replace("_", ".", 1)).write_text(text)
    return d


def test_a_v2_oom_kill_is_read_from_memory_events(tmp_path: Path) -> None:
    events = "low 0\nhigh 0\nmax 9\noom 1\noom_kill {}\n"
    killed = _memory_files(tmp_path / "k", memory_events=events.format(1))
    spared = _memory_files(tmp_path / "s", memory_events=events.format(0))
    assert Cgroup({"v2": killed}, 2).oom_killed()
    assert not Cgroup({"v2": spared}, 2).oom_killed()


def test_a_v1_oom_kill_is_read_from_oom_control(tmp_path: Path) -> None:
    control = "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"
    d = _memory_files(tmp_path / "m", memory_oom_control=control)
    assert Cgroup({"memory": d}, 1).oom_killed()


def test_an_old_v1_kernel_without_a_kill_count_reads_a_limit_reached(tmp_path: Path) -> None:
    """Before Linux 4.13 oom_control has no oom_kill line: failed charges at a peak that
    reached the limit say the group's OOM killer ran."""
    limit = str(128 << 20)
    hit = _memory_files(tmp_path / "hit", memory_oom_control="oom_kill_disable 0\nunder_oom 0\n",
                        memory_failcnt="37", memory_max_usage_in_bytes=limit,
                        memory_limit_in_bytes=limit)
    under = _memory_files(tmp_path / "under", memory_oom_control="oom_kill_disable 0\n",
                          memory_failcnt="0", memory_max_usage_in_bytes=str(40 << 20),
                          memory_limit_in_bytes=limit)
    assert Cgroup({"memory": hit}, 1).oom_killed()
    assert not Cgroup({"memory": under}, 1).oom_killed()
