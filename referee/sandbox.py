"""How a bot process is started: the bubblewrap sandbox, rlimits and cgroups.

Inside the sandbox a bot sees: its own directory at ``/bot`` (read-only, the working
directory), the language runtimes (``/usr``, the Python prefix and niwa's own packages,
read-only), a private ``/tmp`` (tmpfs, size-capped), ``/run/niwa`` (the socket
directory, its only writable place besides /tmp), a minimal ``/dev`` and ``/proc``.
It has no network (own network namespace with only a down loopback), its own pid, IPC
and UTS namespaces, no capabilities, an unprivileged uid/gid (65534), a new session,
a cleared environment, and dies with the referee.

Why not ``--unshare-user``: run as root, a user namespace would map the bot's uid to
the host's root. Instead bwrap (as root) sets the namespaces up and ``setpriv`` drops
to uid/gid 65534 and clears every capability set, including the bounding set, before
the bot runs; the bot is then unprivileged on the host too, so RLIMIT_NPROC applies.
When the referee is not root, bwrap uses an unprivileged user namespace instead.

Start-up order: ``sh`` joins the bot's cgroups and sets the rlimits (so every later
process is accounted from its first instruction), then ``exec``s bwrap or the bot.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SANDBOX_UID = 65534
BOT_DIR = "/bot"
RUN_DIR = "/run/niwa"
SOCKET_NAME = "bot.sock"
#: Packages a Python bot may import from niwa (the SDK and the engine).
NIWA_PACKAGES = ("bots", "engine", "niwa")
NPROC_BACKSTOP = 4096
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Host files a runtime may want; none of them is secret.
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or unusable; the message names the fix."""


@dataclass(frozen=True)
class Limits:
    """What one bot may use. Memory and tasks are enforced by cgroups where the
    machine lets us create them, with rlimits as a backstop."""

    memory_mib: int = 1024
    tasks: int = 128  # processes + threads (cgroup pids.max)
    cpus: float = 1.0  # CPU bandwidth (cgroup cpu quota)
    tmp_mib: int = 64  # size of the private /tmp
    address_space_mib: int = 16_384  # RLIMIT_AS backstop: generous, it counts reservations
    open_files: int = 256
    file_size_mib: int = 64  # RLIMIT_FSIZE: the largest file the bot may write
    message_bytes: int = 1 << 20  # largest gRPC message accepted from the bot


def bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed: install the 'bubblewrap' package "
            "(apt-get install bubblewrap), or pass --no-sandbox for trusted bots"
        )
    return path


def runtime_paths() -> list[Path]:
    """Host directories a bot's runtime needs, read-only: this Python (and its venv)
    and niwa's own packages, so ``import bots.sdk`` works inside."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    for name in NIWA_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths.update(Path(p) for p in spec.submodule_search_locations)
    # /usr is bound whole; anything under it needs no bind of its own.
    return sorted(p.resolve() for p in paths if not _under(p.resolve(), Path("/usr")))


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def bwrap_args(bot_dir: Path | None, run_dir: Path, limits: Limits, as_root: bool) -> list[str]:
    """The bwrap options (without the command) for one bot."""
    args = [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
        "--cap-drop", "ALL",
    ]  # fmt: skip
    if as_root:  # keep only what setpriv needs to drop to the sandbox uid
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LINKS:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    made: set[str] = {"/", "/usr", "/tmp", "/dev", "/proc"}
    for etc in _ETC_FILES:
        if Path("/etc", etc).exists():
            args += [*_parents(f"/etc/{etc}", made), "--ro-bind", f"/etc/{etc}", f"/etc/{etc}"]
    args += ["--dev", "/dev", "--proc", "/proc"]
    # The private /tmp comes before the runtime binds: a venv that lives under /tmp
    # (tox in a CI checkout there) must stay visible on top of it.
    args += ["--size", str(limits.tmp_mib << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    for path in runtime_paths():
        args += [*_parents(str(path), made), "--ro-bind", str(path), str(path)]
    args += [*_parents(RUN_DIR, made), "--bind", str(run_dir), RUN_DIR]
    if bot_dir is not None:
        args += ["--ro-bind", str(bot_dir), BOT_DIR, "--chdir", BOT_DIR]
    else:
        args += ["--chdir", "/tmp"]
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


def address_space_mib(limits: Limits, has_cgroup: bool) -> int:
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
    limits: Limits,
    cgroup_procs: Sequence[Path],
    sandboxed: bool,
    bot_dir: Path | None,
    run_dir: Path,
) -> list[str]:
    """The full argv: ``sh`` joins the cgroups and sets rlimits, then execs the bot,
    through bwrap when ``sandboxed``."""
    as_root = os.geteuid() == 0
    inner = list(command)
    if sandboxed:
        env_args: list[str] = []
        for key, value in env.items():
            env_args += ["--setenv", key, value]
        drop = []
        if as_root:
            # RLIMIT_NPROC counts every process of the sandbox uid (all bots share it),
            # so it is a generous backstop; the pids cgroup is the real per-bot limit.
            drop = [
                "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--",
                "prlimit", f"--nproc={NPROC_BACKSTOP}", "--",
            ]  # fmt: skip
        inner = [bwrap(), *bwrap_args(bot_dir, run_dir, limits, as_root), *env_args, "--",
                 *drop, *command]  # fmt: skip
    script = [f"echo $$ > {shlex.quote(str(f))}" for f in cgroup_procs]
    script += [
        f"ulimit -v {address_space_mib(limits, has_cgroup=bool(cgroup_procs)) << 10}",
        f"ulimit -n {limits.open_files}",
        f"ulimit -f {limits.file_size_mib << 10}",
        "ulimit -c 0",
        'exec "$@"',
    ]
    return ["/bin/sh", "-c", " && ".join(script), "niwa-bot", *inner]
