"""Reading and unpacking an uploaded archive in a child process, under rlimits.

The process that serves the API and runs matches never parses an untrusted archive:
:func:`inspect` and :func:`extract` run ``python -m niwa.ladder.unpack`` with the archive
on stdin. The child limits itself first (address space, CPU seconds, file size, open
files, no core dump), then calls :func:`niwa.ladder.archive.scan` or
:func:`niwa.ladder.archive.extract` and answers with one JSON line. Whatever goes wrong in
it (a refused archive, memory, CPU, a crash) comes back as one :class:`ArchiveError`.

The child keeps the caller's uid: the files it writes must belong to the ladder and be
read-only to bots, and running it as an unprivileged uid would make them owned by a
uid bots may share. Its safety rests on how it writes (see :mod:`niwa.ladder.archive`).
"""

from __future__ import annotations

import dataclasses
import json
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niwa.ladder import archive
from niwa.ladder.archive import DEFAULT_LIMITS, ArchiveError, ArchiveLimits, Inspection


@dataclass(frozen=True)
class ChildLimits:
    memory_bytes: int = 512 * 1024 * 1024  # address space (RLIMIT_AS)
    cpu_seconds: int = 60
    wall_seconds: float = 120.0
    open_files: int = 64


DEFAULT_CHILD = ChildLimits()
_SIGNALS = {
    signal.SIGXCPU: "it used more than {cpu} s of CPU",
    signal.SIGKILL: "it was killed (out of memory or CPU: over {mem} MiB or {cpu} s)",
    signal.SIGSEGV: "it ran out of memory (over {mem} MiB)",
    signal.SIGXFSZ: "a file was over the size limit",
}


def inspect(
    data: bytes, limits: ArchiveLimits = DEFAULT_LIMITS, child: ChildLimits = DEFAULT_CHILD
) -> Inspection:
    """:func:`niwa.ladder.archive.scan` in a child process."""
    return _run(["scan"], data, limits, child)


def extract(
    data: bytes,
    destination: Path,
    limits: ArchiveLimits = DEFAULT_LIMITS,
    child: ChildLimits = DEFAULT_CHILD,
) -> Inspection:
    """:func:`niwa.ladder.archive.extract` in a child process (``destination`` must not exist)."""
    return _run(["extract", str(destination)], data, limits, child)


def _run(args: list[str], data: bytes, limits: ArchiveLimits, child: ChildLimits) -> Inspection:
    if len(data) > limits.archive_bytes:  # not even worth a process
        raise ArchiveError(
            f"the archive is {len(data)} bytes, over the limit of {limits.archive_bytes}"
        )
    settings = json.dumps(
        {"limits": dataclasses.asdict(limits), "child": dataclasses.asdict(child)}
    )
    command = [sys.executable, "-m", "niwa.ladder.unpack", settings, *args]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, timeout=child.wall_seconds, check=False
        )
    except subprocess.TimeoutExpired:
        raise ArchiveError(
            f"unpacking the archive took over {child.wall_seconds:g} s: it was stopped"
        ) from None
    if done.returncode < 0:
        try:
            why = _SIGNALS.get(signal.Signals(-done.returncode), "")
        except ValueError:
            why = ""
        why = why or f"it died of signal {-done.returncode}"
        raise ArchiveError(
            "unpacking the archive failed: "
            + why.format(cpu=child.cpu_seconds, mem=child.memory_bytes >> 20)
        )
    last = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
    try:
        answer = json.loads(last[0]) if last else {}
    except ValueError:
        answer = {}
    if not isinstance(answer, dict) or ("error" not in answer and "root" not in answer):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise ArchiveError(
            f"unpacking the archive failed (exit {done.returncode}): "
            f"{tail[0][:300] if tail else 'no answer'}"
        )
    if "error" in answer:
        raise ArchiveError(str(answer["error"]))
    return Inspection(
        str(answer["root"]),
        str(answer["manifest"]),
        int(answer["files"]),
        int(answer["unpacked_bytes"]),
    )


def _limit_self(limits: ArchiveLimits, child: ChildLimits) -> None:
    for which, value in (
        (resource.RLIMIT_AS, child.memory_bytes),
        (resource.RLIMIT_CPU, child.cpu_seconds),
        (resource.RLIMIT_FSIZE, limits.unpacked_bytes + 1),
        (resource.RLIMIT_NOFILE, child.open_files),
        (resource.RLIMIT_CORE, 0),
    ):
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def main(argv: list[str]) -> int:
    settings: dict[str, Any] = json.loads(argv[0])
    limits = ArchiveLimits(**settings["limits"])
    child = ChildLimits(**settings["child"])
    _limit_self(limits, child)
    answer: dict[str, Any]
    try:
        data = sys.stdin.buffer.read(limits.archive_bytes + 1)
        if argv[1] == "scan":
            found = archive.scan(data, limits)
        else:
            found = archive.extract(data, Path(argv[2]), limits)
        answer = {**dataclasses.asdict(found), "peak_rss_kib": _peak_rss_kib()}
    except ArchiveError as e:
        answer = {"error": str(e), "peak_rss_kib": _peak_rss_kib()}
    except MemoryError:
        answer = {"error": f"the archive needs over {child.memory_bytes >> 20} MiB to unpack"}
    except OSError as e:
        answer = {"error": f"unpacking the archive failed: {e.strerror or e}"}
    print(json.dumps(answer), flush=True)
    return 0 if "error" not in answer else 3


def _peak_rss_kib() -> int:
    """This process's peak resident memory. VmHWM belongs to the memory map made at
    exec; ru_maxrss would also count the parent's before it (kept across execve)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
