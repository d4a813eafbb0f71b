"""Per-bot control groups: memory and task limits, CPU quota and CPU accounting.

We create one child group per bot under the referee's own group, in cgroup v2 when
``/sys/fs/cgroup`` is the unified hierarchy, else in the v1 hierarchies (memory, pids,
cpu, cpuacct). When no group can be created (no permission, read-only /sys) the bot
runs without one and the referee falls back to rlimits and /proc accounting; the
returned :class:`Cgroup` is then ``None`` and the reason is logged once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.sandbox import Limits

ROOT = Path("/sys/fs/cgroup")
_V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")


class CgroupUnavailable(RuntimeError):
    """No cgroup can be created here; the message says why."""


def _own_paths() -> dict[str, str]:
    """controller (or "" for v2) -> this process's group path, from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            paths[""] = path
        for c in controllers.split(","):
            if c:
                paths[c] = path
    return paths


def _v1_mount(controller: str) -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "cgroup" and controller in fields[3].split(","):
            return Path(fields[1])
    return None


def _is_v2_root() -> bool:
    return (ROOT / "cgroup.controllers").exists()


@dataclass
class Cgroup:
    """One bot's groups. ``dirs`` holds one directory per hierarchy used."""

    dirs: dict[str, Path]  # "v2" or a v1 controller -> directory
    version: int

    @classmethod
    def create(cls, name: str, limits: Limits) -> Cgroup:
        """Create the groups and set the limits; raises :class:`CgroupUnavailable`."""
        unique = f"niwa-{name}-{uuid.uuid4().hex[:8]}"
        own = _own_paths()
        dirs: dict[str, Path] = {}
        try:
            if _is_v2_root():
                dirs["v2"] = ROOT / own.get("", "/").lstrip("/") / unique
                dirs["v2"].mkdir()
            else:
                for controller in _V1_CONTROLLERS:
                    mount = _v1_mount(controller)
                    if mount is None:
                        continue
                    path = mount / own.get(controller, "/").lstrip("/") / unique
                    if path not in dirs.values():  # cpu and cpuacct are often co-mounted
                        path.mkdir()
                    dirs[controller] = path
                if "memory" not in dirs or "pids" not in dirs:
                    raise CgroupUnavailable("the memory and pids cgroup controllers are missing")
            group = cls(dirs, 2 if "v2" in dirs else 1)
            group._set_limits(limits)
        except (OSError, CgroupUnavailable) as e:
            for made in set(dirs.values()):
                with contextlib.suppress(OSError):
                    made.rmdir()
            if isinstance(e, CgroupUnavailable):
                raise
            why = f"{e.strerror} ({e.filename})"
            raise CgroupUnavailable(f"cannot create a cgroup: {why}") from None
        return group

    def _set_limits(self, limits: Limits) -> None:
        memory = limits.memory_mib << 20
        period = 100_000
        quota = int(limits.cpus * period)
        if self.version == 2:
            d = self.dirs["v2"]
            _write(d / "memory.max", memory)
            _write(d / "memory.swap.max", 0, optional=True)
            _write(d / "pids.max", limits.tasks)
            _write(d / "cpu.max", f"{quota} {period}", optional=True)
            return
        _write(self.dirs["memory"] / "memory.limit_in_bytes", memory)
        _write(self.dirs["memory"] / "memory.memsw.limit_in_bytes", memory, optional=True)
        _write(self.dirs["pids"] / "pids.max", limits.tasks)
        if "cpu" in self.dirs:
            _write(self.dirs["cpu"] / "cpu.cfs_period_us", period, optional=True)
            _write(self.dirs["cpu"] / "cpu.cfs_quota_us", quota, optional=True)

    def procs_files(self) -> list[Path]:
        """The files a process writes its pid into to join every group."""
        return [d / "cgroup.procs" for d in sorted(set(self.dirs.values()))]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for f in self.procs_files():
            with contextlib.suppress(OSError):
                found.update(int(p) for p in f.read_text().split())
        return found

    def cpu_seconds(self) -> float | None:
        """CPU used by every process that ever ran in the group (user + system)."""
        try:
            if self.version == 2:
                for line in (self.dirs["v2"] / "cpu.stat").read_text().splitlines():
                    key, value = line.split()
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            acct = self.dirs.get("cpuacct")
            if acct is None:
                return None
            return int((acct / "cpuacct.usage").read_text()) / 1e9
        except OSError:
            return None

    def memory_peak_bytes(self) -> int | None:
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        d = self.dirs["v2" if self.version == 2 else "memory"]
        try:
            return int((d / name).read_text())
        except (OSError, ValueError):
            return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for memory."""
        try:
            if self.version == 2:
                text = (self.dirs["v2"] / "memory.events").read_text()
            else:
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
        except OSError:
            return False
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and int(value) > 0:
                return True
        return False

    async def kill_all(self) -> None:
        """SIGKILL every process in the group until it is empty (a fork bomb cannot
        outrun this: pids.max stops it from growing)."""
        kill_file = self.dirs.get("v2", Path("/nonexistent")) / "cgroup.kill"
        if kill_file.exists():
            with contextlib.suppress(OSError):
                kill_file.write_text("1")
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            await trio.sleep(0.005)

    async def remove(self) -> None:
        """Remove the (empty) groups; retried briefly while the kernel lets go."""
        for d in self.dirs.values():
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy for a moment after its last process exits
                    await trio.sleep(0.002)


def _write(path: Path, value: object, optional: bool = False) -> None:
    try:
        path.write_text(str(value))
    except OSError:
        if not optional:
            raise
