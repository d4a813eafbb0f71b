"""Per-bot control groups: memory, task and CPU limits, CPU accounting, the freezer.

One group per bot, a child of the referee's own group, in cgroup v2 when the root
(``/sys/fs/cgroup``, or ``$NIWA_CGROUP_ROOT``) is the unified hierarchy, else in the
v1 hierarchies mounted under it (memory, pids, cpu, cpuacct, freezer). What a group
could not get is listed in :attr:`Cgroup.missing`; :func:`check_required` turns that
into one clear error for callers that must not run a bot without every limit (the
ladder), and :func:`probe` into a warning for the others (``niwa play``).

A group's name carries the referee's pid (``niwa-<match>-<seat>-p<pid>-<random>``), so
a later clean-up (:mod:`niwa.referee.leftovers`) can tell a group whose referee is gone
from one of a match still running.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import trio

from niwa.errors import RefereeError
from niwa.referee import guardian
from niwa.referee.sandbox import BotLimits

DEFAULT_ROOT = Path("/sys/fs/cgroup")
ROOT_ENV = "NIWA_CGROUP_ROOT"
#: What a bot's group must have for every documented limit to hold.
REQUIRED = ("memory", "pids", "cpu", "cpuacct", "freezer")
#: v1: controller -> a file only a (non-root) group of that controller has.
_V1_KEY_FILE = {
    "memory": "memory.limit_in_bytes",
    "pids": "pids.max",
    "cpu": "cpu.cfs_quota_us",
    "cpuacct": "cpuacct.usage",
    "freezer": "freezer.state",
}
_V2_LIMITED = ("memory", "pids", "cpu")
#: v2: the leaf a lone referee moves itself into so its own group may delegate
#: controllers (a v2 group with processes cannot enable them for its children).
REFEREE_LEAF = "niwa-referee"
_OWNER = re.compile(r"-p(\d+)-[0-9a-f]{8}\Z")
#: What the caller's part of a group's name may hold: it becomes a directory name under
#: the hierarchy, so never a "/" or a "..", a NUL or a control character.
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}")
_PERIOD_US = 100_000
#: The CPU quota of a bot that is not being asked (the kernel's minimum: 1 % of a CPU).
IDLE_QUOTA_US = 1000
FIX = (
    "run the referee as root on a machine with cgroup v1 (memory, pids, cpu, cpuacct, "
    "freezer) or cgroup v2 with the memory, pids and cpu controllers delegated to its "
    "group (e.g. systemd-run --scope -p Delegate=yes), or set NIWA_CGROUP_ROOT to such "
    "a hierarchy"
)
_DESCRIBE = {
    "memory": "memory limit",
    "pids": "process limit",
    "cpu": "CPU quota",
    "cpuacct": "CPU accounting",
    "freezer": "freezer",
}


class CgroupUnavailable(RefereeError, RuntimeError):
    """No cgroup can be created here; the message says why."""


class UnsafeName(RefereeError, ValueError):
    """A group name that could leave the bots' hierarchy or fail to be made: refused,
    never a reason to run the bot without its group."""


class LimitsUnavailable(RefereeError, RuntimeError):
    """A bot's documented limits cannot be enforced here; the message names what is
    missing and how to fix it. Not a bot's failure: the referee refuses the match."""


def root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def owner_pid(name: str) -> int | None:
    """The referee pid a group (or run folder) name carries, if any."""
    found = _OWNER.search(name)
    return int(found.group(1)) if found else None


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


def is_v2(top: Path) -> bool:
    return (top / "cgroup.controllers").exists()


def _under(top: Path, own: str) -> Path:
    """This process's group in the hierarchy at ``top``: its own path when that is
    visible there (no cgroup namespace), else the top itself."""
    path = top / own.lstrip("/")
    return path if path.is_dir() else top


def v2_base(top: Path) -> Path:
    """The v2 group whose children the bots' groups are."""
    base = _under(top, _own_paths().get("", "/"))
    return base.parent if base.name == REFEREE_LEAF else base


def v1_bases(top: Path) -> dict[str, Path]:
    """v1 controller -> the group whose children the bots' groups are (for the
    controllers mounted under ``top``)."""
    own = _own_paths()
    bases: dict[str, Path] = {}
    for controller in _V1_KEY_FILE:
        mount = top / controller
        if (mount / "cgroup.procs").exists():
            bases[controller] = _under(mount, own.get(controller, "/"))
    return bases


def bases(top: Path | None = None) -> list[Path]:
    """Every directory the bots' groups are made in (for the clean-up)."""
    top = top or root()
    if is_v2(top):
        return [v2_base(top)]
    return sorted(set(v1_bases(top).values()))


def _read_words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _v2_delegate(base: Path) -> None:
    """Enable the limiting controllers for ``base``'s children, as far as allowed.
    A group holding processes cannot; when the referee is alone in it, it moves
    itself into a leaf child first."""
    wanted = [c for c in _V2_LIMITED if c in _read_words(base / "cgroup.controllers")]
    todo = [c for c in wanted if c not in _read_words(base / "cgroup.subtree_control")]
    for controller in todo:
        try:
            _write(base / "cgroup.subtree_control", f"+{controller}")
        except OSError as e:
            if e.errno != errno.EBUSY:
                continue
            if _read_words(base / "cgroup.procs") != {str(os.getpid())}:
                continue  # other processes share our group: not ours to move
            leaf = base / REFEREE_LEAF
            with contextlib.suppress(FileExistsError):
                leaf.mkdir()
            _write(leaf / "cgroup.procs", os.getpid())
            with contextlib.suppress(OSError):
                _write(base / "cgroup.subtree_control", f"+{controller}")


@dataclass
class Cgroup:
    """One bot's groups. ``dirs`` holds one directory per hierarchy used ("v2", or
    each v1 controller); ``missing`` what of :data:`REQUIRED` the group lacks."""

    dirs: dict[str, Path]
    version: int
    missing: tuple[str, ...] = ()
    quota_us: int = _PERIOD_US  # the CPU quota per period a bot has while it is asked
    # Kept open: a freeze, a throttle or a CPU reading is then one system call.
    _fds: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def create(cls, name: str, limits: BotLimits, top: Path | None = None) -> Cgroup:
        """Make the group and set the limits it can; raise :class:`CgroupUnavailable`
        when no group at all can be made."""
        if not _SAFE_NAME.fullmatch(name) or ".." in name:
            raise UnsafeName(
                f"unsafe cgroup name {name[:40]!r}: letters, digits and _.@+- only "
                "(at most 128, no '..')"
            )
        top = top or root()
        unique = f"niwa-{name}-p{os.getpid()}-{uuid.uuid4().hex[:8]}"
        dirs: dict[str, Path] = {}
        try:
            if is_v2(top):
                group = cls._create_v2(top, unique, limits, dirs)
            else:
                group = cls._create_v1(top, unique, limits, dirs)
        except (OSError, CgroupUnavailable) as e:
            for made in set(dirs.values()):
                with contextlib.suppress(OSError):
                    made.rmdir()
            if isinstance(e, CgroupUnavailable):
                raise
            why = f"{e.strerror} ({e.filename})" if e.filename else str(e)
            raise CgroupUnavailable(f"cannot create a cgroup under {top}: {why}") from None
        # Its bots must not outlive this process. Started after the group is made: on
        # v2 the referee may first move itself into a leaf, which it does only when it
        # is alone in its group. (Killed in between, the start-up clean-up removes it.)
        guardian.ensure()
        return group

    @classmethod
    def _create_v2(cls, top: Path, unique: str, limits: BotLimits, dirs: dict[str, Path]) -> Cgroup:
        base = v2_base(top)
        _v2_delegate(base)
        d = dirs["v2"] = base / unique
        d.mkdir()
        have = _read_words(d / "cgroup.controllers")
        missing = [c for c in _V2_LIMITED if c not in have]
        if not (d / "cpu.stat").exists():
            missing.append("cpuacct")
        if not (d / "cgroup.freeze").exists():
            missing.append("freezer")
        memory = limits.memory_mib << 20
        if "memory" in have:
            _write(d / "memory.max", memory)
            _write(d / "memory.swap.max", 0, optional=True)
        if "pids" in have:
            _write(d / "pids.max", limits.tasks)
        if "cpu" in have and not _write(
            d / "cpu.max", f"{_quota_us(limits)} {_PERIOD_US}", optional=True
        ):
            missing.append("cpu")
        return cls(dirs, 2, tuple(c for c in REQUIRED if c in missing), _quota_us(limits))

    @classmethod
    def _create_v1(cls, top: Path, unique: str, limits: BotLimits, dirs: dict[str, Path]) -> Cgroup:
        found = v1_bases(top)
        if not found:
            raise CgroupUnavailable(f"no cgroup hierarchy is mounted under {top}")
        made: dict[Path, Path] = {}  # co-mounted controllers share one directory
        for controller, base in found.items():
            real = base.resolve()
            if real not in made:
                made[real] = base / unique
                made[real].mkdir()
            dirs[controller] = made[real]
        missing = [c for c in REQUIRED if not (dirs.get(c, top) / _V1_KEY_FILE[c]).exists()]
        for c in missing:
            dirs.pop(c, None)
        if "memory" in dirs:
            memory = limits.memory_mib << 20
            _write(dirs["memory"] / "memory.limit_in_bytes", memory)
            _write(dirs["memory"] / "memory.memsw.limit_in_bytes", memory, optional=True)
        if "pids" in dirs:
            _write(dirs["pids"] / "pids.max", limits.tasks)
        if "cpu" in dirs:
            ok = _write(dirs["cpu"] / "cpu.cfs_period_us", _PERIOD_US, optional=True)
            quota = _quota_us(limits)
            if not (ok and _write(dirs["cpu"] / "cpu.cfs_quota_us", quota, optional=True)):
                missing.append("cpu")
        for unused in set(made.values()) - set(dirs.values()):
            unused.rmdir()
        return cls(dirs, 1, tuple(c for c in REQUIRED if c in missing), _quota_us(limits))

    def describe_missing(self) -> str:
        return ", ".join(_DESCRIBE[c] for c in self.missing)

    def procs_files(self) -> list[Path]:
        """The files a process writes its pid into to join every group."""
        return [d / "cgroup.procs" for d in sorted(set(self.dirs.values()))]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for f in self.procs_files():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in f.read_text().split())
        return found

    def freeze(self) -> None:
        """Stop every process of the group where it stands (one write; the kernel
        finishes freezing asynchronously). No-op without a freezer. A v1 freeze or
        thaw costs about 0.1 ms for a bot with a few threads: see :meth:`throttle`."""
        if self.version == 2:
            self._put("v2", "cgroup.freeze", b"1")
        else:
            self._put("freezer", "freezer.state", b"FROZEN")

    def thaw(self) -> None:
        if self.version == 2:
            self._put("v2", "cgroup.freeze", b"0")
        else:
            self._put("freezer", "freezer.state", b"THAWED")

    @property
    def can_throttle(self) -> bool:
        return "cpu" not in self.missing and ("v2" in self.dirs or "cpu" in self.dirs)

    def throttle(self) -> None:
        """Cut the group's CPU quota to :data:`IDLE_QUOTA_US` per period (1 % of a
        CPU): a few microseconds, against a freeze's hundred, so a bot can be held
        back after every answer and frozen only once it has been idle a while."""
        self._set_quota(IDLE_QUOTA_US)

    def unthrottle(self) -> None:
        self._set_quota(self.quota_us)

    def _set_quota(self, quota_us: int) -> None:
        if self.version == 2:
            self._put("v2", "cpu.max", f"{quota_us} {_PERIOD_US}".encode())
        else:
            self._put("cpu", "cpu.cfs_quota_us", str(quota_us).encode())

    def _put(self, hierarchy: str, name: str, value: bytes) -> None:
        fd = self._fd(hierarchy, name, os.O_WRONLY)
        if fd is not None:
            with contextlib.suppress(OSError):  # the group may be gone already
                os.write(fd, value)

    def _fd(self, hierarchy: str, name: str, flags: int) -> int | None:
        fd = self._fds.get(name)
        if fd is None:
            d = self.dirs.get(hierarchy)
            if d is None:
                return None
            try:
                fd = self._fds[name] = os.open(d / name, flags | os.O_CLOEXEC)
            except OSError:
                return None
        return fd

    def _close_files(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def frozen(self) -> bool:
        """Whether the kernel reports the group (fully) frozen."""
        try:
            if self.version == 2:
                events = (self.dirs["v2"] / "cgroup.events").read_text()
                return "frozen 1" in events.splitlines()
            if "freezer" in self.dirs:
                return (self.dirs["freezer"] / "freezer.state").read_text().strip() == "FROZEN"
        except OSError:
            pass
        return False

    def cpu_seconds(self) -> float | None:
        """CPU used by every process that ever ran in the group (user + system)."""
        try:
            if self.version == 2:
                fd = self._fd("v2", "cpu.stat", os.O_RDONLY)
                if fd is None:
                    return None
                for line in os.pread(fd, 4096, 0).split(b"\n"):
                    key, _, value = line.partition(b" ")
                    if key == b"usage_usec":
                        return int(value) / 1e6
                return None
            fd = self._fd("cpuacct", "cpuacct.usage", os.O_RDONLY)
            return None if fd is None else int(os.pread(fd, 64, 0)) / 1e9
        except (OSError, ValueError):
            return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for memory."""
        try:
            if self.version == 2:
                text = (self.dirs["v2"] / "memory.events").read_text()
            elif "memory" in self.dirs:
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
            else:
                return False
        except OSError:
            return False
        counts: dict[str, int] = {}
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                counts[key] = int(value)
        if "oom_kill" in counts:
            return counts["oom_kill"] > 0
        if self.version == 1:  # kernels before 4.13 do not count kills: it hit the limit
            return self._v1_hit_limit()
        return False

    def _v1_hit_limit(self) -> bool:
        """v1 without an ``oom_kill`` count: allocations failed at the limit and the
        peak reached it (the kernel's OOM killer then acts inside the group)."""
        memory = self.dirs["memory"]
        try:
            failed = int((memory / "memory.failcnt").read_text())
            peak = int((memory / "memory.max_usage_in_bytes").read_text())
            limit = int((memory / "memory.limit_in_bytes").read_text())
        except (OSError, ValueError):
            return False
        return failed > 0 and peak >= limit

    def signal_kill(self) -> None:
        """One round of SIGKILL to the whole group: ``cgroup.kill`` on v2, else each
        process; thawed first (a frozen v1 task does not die until it runs again)."""
        self.thaw()
        if self.version == 2:
            with contextlib.suppress(OSError):
                _write(self.dirs["v2"] / "cgroup.kill", 1)
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    async def kill_all(self) -> None:
        """SIGKILL every process in the group until it is empty (a fork bomb cannot
        outrun this: pids.max stops it from growing)."""
        for _ in range(200):
            if not self.pids():
                return
            self.signal_kill()
            await trio.sleep(0.005)

    def kill_all_sync(self, timeout_s: float = 2.0) -> bool:
        """:meth:`kill_all` outside trio (the start-up clean-up); True once empty."""
        give_up = time.monotonic() + timeout_s
        while self.pids():
            if time.monotonic() > give_up:
                return False
            self.signal_kill()
            time.sleep(0.005)
        return True

    async def remove(self) -> None:
        """Remove the (empty) groups; retried briefly while the kernel lets go."""
        self._close_files()
        for d in set(self.dirs.values()):
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy for a moment after its last process exits
                    await trio.sleep(0.002)


def probe(limits: BotLimits, top: Path | None = None) -> str:
    """What a bot's group would not enforce here ("" when everything holds), by
    making one group and removing it."""
    try:
        group = Cgroup.create("probe", limits, top)
    except CgroupUnavailable as e:
        return f"no cgroup at all ({e}): no memory limit, process limit, CPU quota, " \
               "CPU accounting or freezer"
    for d in set(group.dirs.values()):
        with contextlib.suppress(OSError):
            d.rmdir()
    if not group.missing:
        return ""
    return f"cgroup v{group.version} without {group.describe_missing()}"


def check_required(limits: BotLimits, top: Path | None = None) -> None:
    """Raise :class:`LimitsUnavailable` unless a bot's group gets every limit."""
    problem = probe(limits, top)
    if problem:
        raise LimitsUnavailable(f"cannot enforce the bot limits: {problem}; {FIX}")


def _quota_us(limits: BotLimits) -> int:
    return max(IDLE_QUOTA_US, int(limits.cpus * _PERIOD_US))


def _write(path: Path, value: object, optional: bool = False) -> bool:
    """Write one value; with ``optional`` a refusal returns False instead of raising."""
    try:
        with path.open("w") as f:
            f.write(str(value))
    except OSError:
        if not optional:
            raise
        return False
    return True
