"""How a bot process is started: the bubblewrap sandbox, rlimits, cgroups, seccomp.

Inside the sandbox a bot sees: its own directory at ``/bot`` (read-only, the working
directory), the language runtimes (``/usr``, the Python prefix and niwa's own packages,
read-only), a private ``/tmp`` and ``/run/niwa`` (the socket directory), its only
writable places, a minimal ``/dev`` and ``/proc`` (without the kernel's global
counters: :data:`GLOBAL_COUNTERS`). It has no network (own network
namespace with only a down loopback), its own pid, IPC and UTS namespaces, no
capabilities, its own unprivileged uid (:mod:`niwa.referee.uids`), a seccomp filter
(:mod:`niwa.referee.seccomp`), a new session, a cleared environment, and dies with the
referee.

Why not ``--unshare-user``: run as root, a user namespace would map the bot's uid to
the host's root. Instead bwrap (as root) sets the namespaces up and ``setpriv`` drops
to the bot's uid and clears every capability set, including the bounding set, before
the bot runs; the bot is then unprivileged on the host too, so RLIMIT_NPROC applies
(to it alone: the uid is its own). When the referee is not root, bwrap uses an
unprivileged user namespace instead (uid 65534 inside, the referee's uid outside).

Writable places, as root: before bwrap, the launcher enters a private mount namespace
(``unshare --mount``) and mounts one tmpfs there, capped in bytes *and* inodes
(``size=``, ``nr_inodes=``: bwrap's own ``--size`` cannot cap inodes), on the fixed
mount point :data:`MOUNT_POINT`; ``tmp/`` and ``run/`` in it become ``/tmp`` and
``/run/niwa``. The tmpfs exists only in that namespace: nothing a bot writes reaches
the host's disk or even the host's mount table, and it vanishes with the sandbox (also
after ``kill -9`` of the referee). The bot directory is shown through a read-only
overlay mounted from inside it (``lowerdir=.``), so ``/proc/self/mountinfo`` names no
host path for it. Without root: bwrap's byte-capped ``--tmpfs`` for both places (no
inode cap, and the bot directory's host path shows in mountinfo).

Start-up order: ``sh`` joins the bot's cgroups and sets the rlimits (so every later
process is accounted from its first instruction), then ``exec``s the set-up and bwrap,
or the bot.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from niwa.errors import RefereeError
from niwa.referee import seccomp, uids

#: The uid a bot has inside an unprivileged (non-root) sandbox's user namespace.
NOBODY_UID = 65534
BOT_DIR = "/bot"
RUN_DIR = "/run/niwa"
SOCKET_NAME = "bot.sock"
#: Where a root sandbox's private tmpfs is mounted, inside its own mount namespace only.
MOUNT_POINT = uids.STATE_DIR / "mnt"
#: niwa's package, mounted read-only so a Python bot can import the SDK (niwa.bots.sdk),
#: the engine and the wire code, and the RL adapters (e.g. examples/openspiel-bot).
NIWA_PACKAGES = ("niwa",)
#: Inodes the tmpfs itself uses besides the bot's files (its root, tmp, run, bot, empty).
_OWN_INODES = 5
#: Size of /run/niwa without root (bwrap's tmpfs; as root it shares the one tmpfs).
_RUN_MIB = 1
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Host files a runtime may want; none of them is secret.
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")
#: Debian's JDKs keep their configuration (java.security, jvm.cfg) in /etc/java-N-openjdk,
#: linked from /usr/lib/jvm: without it the JVM cannot start its security or logging.
_ETC_GLOBS = ("java-*-openjdk",)
#: Global kernel counters in /proc that change with what *other* processes do (open
#: files, load, CPU ticks, free memory, interrupts, locks, cgroup counts...): two bots
#: playing at the same time could signal through them (one opens files, the other reads
#: /proc/sys/fs/file-nr). Each is hidden behind an unreadable /dev/null. What a bot
#: needs of /proc is its own process (/proc/self) and constants (cpuinfo, version).
GLOBAL_COUNTERS = (
    "loadavg", "stat", "meminfo", "vmstat", "uptime", "interrupts", "softirqs",
    "diskstats", "schedstat", "locks", "cgroups", "zoneinfo", "buddyinfo",
    "pagetypeinfo", "slabinfo", "timer_list", "key-users", "keys", "swaps",
    "vmallocinfo", "sched_debug", "latency_stats", "partitions", "kmsg",
)  # fmt: skip
#: Directories of /proc made empty (a read-only tmpfs): /proc/sys holds the kernel's
#: tunables and counters (fs/file-nr, fs/inode-nr, fs/dentry-state, kernel/random/
#: entropy_avail...), /proc/pressure the machine's stall times.
GLOBAL_COUNTER_DIRS = ("sys", "pressure")


class SandboxUnavailable(RefereeError, RuntimeError):
    """bubblewrap is missing or unusable; the message names the fix."""


class SocketRefused(RefereeError, RuntimeError):
    """The bot's socket path does not lead to a socket the bot made."""


@dataclass(frozen=True)
class BotLimits:
    """What one bot may use. Memory and tasks are enforced by cgroups where the
    machine lets us create them, with rlimits as a backstop."""

    memory_mib: int = 1024
    tasks: int = 128  # processes + threads (cgroup pids.max; RLIMIT_NPROC as root)
    cpus: float = 1.0  # CPU bandwidth (cgroup cpu quota)
    tmp_mib: int = 64  # bytes of the private tmpfs (/tmp and /run/niwa together)
    tmp_inodes: int = 4096  # files + directories the bot may create there (as root)
    address_space_mib: int = 16_384  # RLIMIT_AS backstop: generous, it counts reservations
    open_files: int = 256
    file_size_mib: int = 64  # RLIMIT_FSIZE: the largest file the bot may write
    message_bytes: int = 1 << 20  # largest gRPC message accepted from the bot


@dataclass(frozen=True)
class Sandbox:
    """What one sandboxed bot gets besides its command: its directory (None for a
    built-in bot), its uid (root referee only), and the descriptors bwrap reads."""

    bot_dir: Path | None
    uid: int | None  # None: not root, bwrap maps NOBODY_UID to the referee's uid
    seccomp_fd: int
    info_fd: int
    #: host folders bound read-only at the same path (a built-in bot's learned values)
    read_only: tuple[Path, ...] = ()


def bwrap() -> str:
    """bwrap's path; raises :class:`SandboxUnavailable` when sandboxed bots cannot run
    here (no bwrap, or an architecture without a seccomp filter)."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed: install the 'bubblewrap' package "
            "(apt-get install bubblewrap), or pass --no-sandbox for trusted bots"
        )
    try:
        seccomp.arch()
    except seccomp.UnsupportedArch as e:
        raise SandboxUnavailable(str(e)) from None
    return path


def seccomp_fd() -> int:
    """A descriptor holding the seccomp program, positioned at its start, for bwrap's
    ``--seccomp`` (close-on-exec: pass it to the child explicitly)."""
    fd = os.memfd_create("niwa-seccomp", os.MFD_CLOEXEC)
    os.write(fd, seccomp.program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def runtime_paths() -> list[Path]:
    """Host directories a bot's runtime needs, read-only: this Python (and its venv),
    niwa's own package, so ``import niwa.bots.sdk`` works inside, and the package of
    every game registered from elsewhere (a plugin installed in another folder: a user
    install, ``PYTHONPATH``), so a Python bot can load the game it plays."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    plugins = {ep.value.split(":")[0].split(".")[0] for ep in entry_points(group="niwa.games")}
    for name in sorted({*NIWA_PACKAGES, *plugins}):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths.update(Path(p) for p in spec.submodule_search_locations)
        elif spec is not None and spec.origin:  # a game that is a single module
            paths.add(Path(spec.origin))
    # /usr is bound whole; anything under it needs no bind of its own.
    return sorted(p.resolve() for p in paths if not _under(p.resolve(), Path("/usr")))


def etc_entries() -> list[str]:
    """The names under /etc a sandbox shows (read-only), those present or not."""
    found = sorted(p.name for pattern in _ETC_GLOBS for p in Path("/etc").glob(pattern))
    return [*_ETC_FILES, *found]


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def bwrap_args(box: Sandbox, limits: BotLimits) -> list[str]:
    """The bwrap options (without the command) for one bot. As root (``box.uid`` set)
    they expect the private tmpfs the launcher mounts on :data:`MOUNT_POINT`."""
    as_root = box.uid is not None
    args = [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
        "--cap-drop", "ALL", "--seccomp", str(box.seccomp_fd), "--info-fd", str(box.info_fd),
    ]  # fmt: skip
    if as_root:  # keep only what setpriv needs to drop to the sandbox uid
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-user", "--uid", str(NOBODY_UID), "--gid", str(NOBODY_UID)]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LINKS:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    made: set[str] = {"/", "/usr", "/tmp", "/dev", "/proc"}
    for etc in etc_entries():
        if Path("/etc", etc).exists():
            args += [*_parents(f"/etc/{etc}", made), "--ro-bind", f"/etc/{etc}", f"/etc/{etc}"]
    args += ["--dev", "/dev", "--proc", "/proc", *_hide_counters()]
    # The private /tmp comes before the runtime binds: a venv that lives under /tmp
    # (tox in a CI checkout there) must stay visible on top of it.
    if as_root:
        args += ["--bind", f"{MOUNT_POINT}/tmp", "/tmp"]
    else:
        args += ["--size", str(limits.tmp_mib << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    for path in (*runtime_paths(), *box.read_only):
        args += [*_parents(str(path), made), "--ro-bind", str(path), str(path)]
    args += _parents(RUN_DIR, made)
    if as_root:
        args += ["--bind", f"{MOUNT_POINT}/run", RUN_DIR]
    else:
        args += ["--size", str(_RUN_MIB << 20), "--perms", "1777", "--tmpfs", RUN_DIR]
    if box.bot_dir is not None:
        source = f"{MOUNT_POINT}/bot" if as_root else str(box.bot_dir)
        args += ["--ro-bind", source, BOT_DIR, "--chdir", BOT_DIR]
    else:
        args += ["--chdir", "/tmp"]
    return args


def _hide_counters() -> list[str]:
    """bwrap options hiding :data:`GLOBAL_COUNTERS` and :data:`GLOBAL_COUNTER_DIRS`
    (those this kernel has: bwrap cannot mount over a missing file)."""
    args: list[str] = []
    for name in GLOBAL_COUNTER_DIRS:
        if Path("/proc", name).is_dir():
            args += ["--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
    for name in GLOBAL_COUNTERS:
        if Path("/proc", name).exists():
            args += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    return args


def _parents(path: str, made: set[str]) -> list[str]:
    """``--dir`` for each missing ancestor, world-readable: bwrap would make them 0700
    and the sandbox uid could not walk through them."""
    args: list[str] = []
    parts = Path(path).parts
    for i in range(2, len(parts)):
        d = str(Path(*parts[:i]))
        if d not in made:
            made.add(d)
            args += ["--perms", "0755", "--dir", d]
    return args


def private_mounts(box: Sandbox, limits: BotLimits) -> list[str]:
    """The argv prefix (root only) that enters a private mount namespace, mounts the
    bot's capped tmpfs and its directory's overlay there, then runs the rest."""
    m = shlex.quote(str(uids.state_dir("mnt")))
    options = (
        f"size={limits.tmp_mib}m,nr_inodes={limits.tmp_inodes + _OWN_INODES},"
        "mode=0755,nosuid,nodev"
    )
    script = [
        f"mount -t tmpfs -o {options} niwa {m}",
        # (bot and empty are the overlay's mount point and second layer, never shown)
        f"mkdir -m 1777 {m}/tmp {m}/run {m}/bot {m}/empty",
    ]
    if box.bot_dir is not None:
        # lowerdir given relative to the bot directory: mountinfo shows "." for it.
        # Without overlayfs, fall back to a bind (the host path then shows).
        script += [
            f"cd {shlex.quote(str(box.bot_dir))}",
            f"{{ mount -t overlay -o ro,lowerdir=.:{m}/empty niwa-bot {m}/bot "
            f"|| mount --bind -o ro . {m}/bot; }}",
            "cd /",
        ]
    script.append('exec "$@"')
    return [
        "unshare", "--mount", "--propagation", "private", "--",
        "/bin/sh", "-c", " && ".join(script), "niwa-mounts",
    ]  # fmt: skip


def address_space_mib(limits: BotLimits, has_cgroup: bool) -> int:
    """RLIMIT_AS for a bot. With a memory cgroup it is only a generous backstop (it
    counts reserved address space: Node reserves about 1 GiB, each Python thread
    64 MiB of malloc arena); without one it is the only memory limit there is, so it
    comes down to four times the memory limit, at least 4 GiB."""
    if has_cgroup:
        return limits.address_space_mib
    return min(limits.address_space_mib, max(4 * limits.memory_mib, 4096))


def launcher(
    command: Sequence[str],
    env: Mapping[str, str],
    limits: BotLimits,
    cgroup_procs: Sequence[Path],
    box: Sandbox | None,
) -> list[str]:
    """The full argv: ``sh`` joins the cgroups and sets rlimits, then execs the bot,
    through the private mounts (root) and bwrap when ``box`` is given. Unsandboxed, the
    bot gets SIGKILL when the referee dies (PR_SET_PDEATHSIG through ``setpriv``): what
    bwrap's ``--die-with-parent`` does for a sandboxed one."""
    inner = list(command)
    if box is None and shutil.which("setpriv") is not None:
        inner = ["setpriv", "--pdeathsig", "KILL", "--", *command]
    if box is not None:
        env_args: list[str] = []
        for key, value in env.items():
            env_args += ["--setenv", key, value]
        mounts: list[str] = []
        drop: list[str] = []
        if box.uid is not None:
            mounts = private_mounts(box, limits)
            # The uid is this bot's alone, so RLIMIT_NPROC is a per-bot task limit.
            drop = [
                "setpriv", f"--reuid={box.uid}", f"--regid={box.uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--",
                "prlimit", f"--nproc={limits.tasks}", "--",
            ]  # fmt: skip
        inner = [*mounts, bwrap(), *bwrap_args(box, limits), *env_args, "--",
                 *drop, *command]  # fmt: skip
    script = [f"echo $$ > {shlex.quote(str(f))}" for f in cgroup_procs]
    script += [
        f"ulimit -v {address_space_mib(limits, has_cgroup=bool(cgroup_procs)) << 10}",
        f"ulimit -n {limits.open_files}",
        # sh counts -f in 512-byte blocks (-v in KiB).
        f"ulimit -f {limits.file_size_mib << 11}",
        "ulimit -c 0",
        'exec "$@"',
    ]
    return ["/bin/sh", "-c", " && ".join(script), "niwa-bot", *inner]


def sandbox_pid(info: bytes) -> int:
    """The pid of the sandbox's first process, from what bwrap wrote on ``--info-fd``."""
    try:
        pid = json.loads(info)["child-pid"]
    except (ValueError, KeyError, TypeError):
        raise SocketRefused(f"bwrap reported no child pid ({info[:80]!r})") from None
    if not isinstance(pid, int) or pid <= 1:
        raise SocketRefused(f"bwrap reported no child pid ({info[:80]!r})")
    return pid


def open_socket(pid: int, owner: int) -> int:
    """An ``O_PATH`` descriptor of ``/run/niwa/bot.sock`` inside the sandbox whose
    first process is ``pid``, reached through ``/proc/PID/root`` one component at a
    time with ``O_NOFOLLOW``: the bot cannot make it lead anywhere else (a symlink is
    refused, not followed). It must be a socket owned by ``owner``. Connect through
    ``/proc/self/fd/N`` and keep the descriptor open while connected."""
    flags = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in Path(RUN_DIR).parts[1:]:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        sock = os.open(SOCKET_NAME, flags, dir_fd=fd)
    finally:
        os.close(fd)
    st = os.fstat(sock)
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != owner:
        os.close(sock)
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else f"mode {st.st_mode:o}"
        raise SocketRefused(
            f"{RUN_DIR}/{SOCKET_NAME} is not a socket the bot made ({kind}, uid {st.st_uid})"
        )
    return sock
