"""A bot that misbehaves in the way named by its first argument (tests/referee).

Behaviours that probe the sandbox answer normally and report what they saw in the
note of their first answer, so the test can read the outcome from the replay.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from niwa.bots.sdk import READY_LINE, SOCKET_ENV, GameStart, Reply, Thinking, Turn, serve

BEHAVIOUR = sys.argv[1]
ARGS = sys.argv[2:]


def probe_network() -> str:
    try:
        socket.create_connection(("127.0.0.1", int(ARGS[0])), timeout=1).close()
    except OSError as e:
        return f"connect blocked: {type(e).__name__}"
    return "connect succeeded"


def probe_read() -> str:
    seen = []
    for path in ARGS:
        try:
            with open(path) as f:
                seen.append(f"read {path}: {f.read(40)!r}")
        except OSError as e:
            seen.append(f"blocked {path}: {type(e).__name__}")
    return "; ".join(seen)


def probe_write() -> str:
    try:
        with open("written-by-bot.txt", "w") as f:
            f.write("x")
    except OSError as e:
        return f"write blocked: {type(e).__name__}"
    return "write succeeded"


BOMB = """
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
"""


def fork_bomb() -> str:
    """Start a fork bomb (in a fresh interpreter: gRPC's fork handlers would stall a
    forked copy of this one), then wait, inside the deadline, until the process limit
    refuses this process a new child too."""
    subprocess.Popen([sys.executable, "-c", BOMB])
    give_up = time.monotonic() + 1.5
    while time.monotonic() < give_up:
        try:
            pid = os.posix_spawn("/bin/true", ["true"], {})
        except BlockingIOError:
            alive = sum(1 for p in os.listdir("/proc") if p.isdigit())
            return f"fork refused with {alive} processes running"
        os.waitpid(pid, 0)
        time.sleep(0.01)
    return "fork still allowed"


def hang_up() -> None:
    """Stop the gRPC server (through the SDK's SIGTERM handler, which drops the call in
    flight); the process lives on without serving. Done while the second question is
    being asked, not a moment after the first answer: a match of fast bots can be over
    within that moment."""
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)  # the call is dropped meanwhile; this answer is never sent


def flood(stream: object) -> None:
    line = ("flood " * 200 + "\n").encode()
    fd = stream.fileno()  # type: ignore[attr-defined]
    while True:
        os.write(fd, line)


def errno_name(e: OSError) -> str:
    return errno.errorcode.get(e.errno or 0, str(e.errno))


def fill_disk() -> str:
    """Write bytes (8 MiB files, under the per-file limit) until refused, then empty
    files until refused."""
    written, why, n = 0, "never refused", 0
    chunk = b"x" * (1 << 20)
    try:
        for n in range(2048):  # stop at 16 GiB whatever happens
            with open(f"/tmp/fill{n}", "wb", buffering=0) as f:
                for _ in range(8):
                    written += f.write(chunk)
    except OSError as e:
        why = errno_name(e)
    for i in range(n + 1):
        os.unlink(f"/tmp/fill{i}")
    files, why_files = 0, "never refused"
    try:
        for i in range(1 << 20):
            for d in ("/run/niwa", "/tmp"):
                open(f"{d}/f{i}", "wb").close()
                files += 1
    except OSError as e:
        why_files = errno_name(e)
    return f"bytes {written} {why}; files {files} {why_files}"


def write_file() -> str:
    size = int(ARGS[0])
    try:
        with open("/tmp/big", "wb") as f:
            f.write(b"x" * size)
    except OSError as e:
        return f"refused {errno_name(e)}"
    return f"wrote {os.path.getsize('/tmp/big')}"


def nest() -> str:
    """3,000 nested directories in /tmp, with links out of the tree along the way."""
    os.chdir("/tmp")
    for i in range(3000):
        os.mkdir("d")
        os.chdir("d")
        if i % 100 == 0:
            os.symlink("/bot", "out")
    os.chdir("/bot")
    return "nested"


LIBC = ctypes.CDLL(None, use_errno=True)


def probe_syscalls() -> None:
    """Each denied system call (numbers from argv) with harmless arguments; the errno
    of each goes to stderr. Only under a seccomp filter and an unprivileged uid: some
    of these would act as root."""
    with open("/proc/self/status") as f:
        status = f.read()
    if "Seccomp:\t2" not in status or os.getuid() == 0:
        print("PROBE no filter", file=sys.stderr, flush=True)
        return
    for spec in ARGS:
        name, nr, *args = spec.split(":")
        ctypes.set_errno(0)
        ret = LIBC.syscall(ctypes.c_long(int(nr)), *(ctypes.c_long(int(a)) for a in args))
        err = ctypes.get_errno() if ret == -1 else 0
        print(f"PROBE {name}={errno.errorcode.get(err, str(err))}", file=sys.stderr, flush=True)


def hog_inotify() -> int:
    held = []
    while True:
        fd = LIBC.inotify_init1(0)
        if fd < 0:
            return len(held)
        held.append(fd)


def probe_counters() -> str:
    """Which of the kernel's global counters this bot can read (non-empty)."""
    names = [
        "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/dentry-state",
        "sys/kernel/random/entropy_avail", "pressure/cpu", "loadavg", "stat", "meminfo",
        "vmstat", "uptime", "interrupts", "softirqs", "diskstats", "locks", "cgroups",
        "zoneinfo", "buddyinfo", "swaps", "key-users",
    ]  # fmt: skip
    readable = []
    for name in names:
        try:
            with open(f"/proc/{name}", "rb") as f:
                if f.read(1):
                    readable.append(name)
        except OSError:
            pass
    return "readable: " + (" ".join(readable) or "none")


def spin_forever() -> None:
    while True:
        pass


class Hostile:
    def __init__(self) -> None:
        self.calls = 0
        self.players = 0

    def start(self, game: GameStart) -> None:
        self.players = game.players
        if BEHAVIOUR == "raise-start":
            raise RuntimeError("no weights file")

    def act(self, turn: Turn) -> int | Reply:
        self.calls += 1
        if BEHAVIOUR == "sleep":
            time.sleep(3600)
        if BEHAVIOUR == "nap":  # idle (no CPU) for ARGS[0] ms, then answer
            time.sleep(int(ARGS[0]) / 1000)
        if BEHAVIOUR == "spin":
            while True:
                pass
        if BEHAVIOUR == "allocate":
            hog = b"\x01" * (4 << 30)  # 4 GiB, touched
            return len(hog) % 1
        if BEHAVIOUR == "crash" and self.calls == 2:
            print("about to crash on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        if BEHAVIOUR == "thinking":  # ARGS[0]: good, or the one thing wrong with it
            n = len(turn.legal_actions)
            shares = [1 / n] * n + ([0.0] if ARGS[0] == "share-too-many" else [])
            values = [1 / self.players] * self.players
            if ARGS[0] == "nan-value":
                values[0] = float("nan")
            pv = [turn.legal_actions[0]] * (40 if ARGS[0] == "long-pv" else 1)
            return Reply(index=0, thinking=Thinking(shares, values, pv))
        if BEHAVIOUR == "debug":  # ARGS[0] bytes of debug text, on several lines
            text = f"decision {turn.decision}\n\x1b[31mred\n" + "d" * int(ARGS[0])
            return Reply(index=0, note="with debug", debug=text)
        if BEHAVIOUR == "raise" and self.calls == int(ARGS[0]):  # at the ARGS[0]-th call
            raise ValueError(f"bad index {len(turn.legal_actions)}")
        if BEHAVIOUR == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if BEHAVIOUR == "illegal":
            return Reply(action={"no such": "action"})
        if BEHAVIOUR == "illegal-at" and self.calls == int(ARGS[0]):  # once, legal otherwise
            return Reply(action={"no such": "action"})
        if BEHAVIOUR == "out-of-range":
            return len(turn.legal_actions)
        if BEHAVIOUR == "huge":
            return Reply(index=0, note="x" * (16 << 20))
        if BEHAVIOUR == "hang-up" and self.calls == 2:
            hang_up()
        if BEHAVIOUR == "fork-bomb" and self.calls == 1:
            return Reply(index=0, note=fork_bomb())
        if self.calls == 1:
            probe = {
                "network": probe_network, "read": probe_read, "write": probe_write,
                "fill": fill_disk, "write-file": write_file, "nest": nest,
                "whoami": lambda: f"uid {os.getuid()}", "counters": probe_counters,
                "inotify-hog": lambda: f"hogged {HOGGED}",
                "inotify": lambda: "ok" if LIBC.inotify_init1(0) >= 0 else "refused",
            }  # fmt: skip
            if BEHAVIOUR == "syscalls":
                probe_syscalls()
            if BEHAVIOUR == "mountinfo":
                with open("/proc/self/mountinfo") as f:
                    print(f.read(), file=sys.stderr, flush=True)
            if BEHAVIOUR in probe:
                return Reply(index=0, note=probe[BEHAVIOUR]())
        return 0


HOGGED = hog_inotify() if BEHAVIOUR == "inotify-hog" else 0
if BEHAVIOUR == "symlink-socket":
    # Serve on another name and plant a link to a host socket where the referee looks.
    planted = os.environ[SOCKET_ENV]
    os.environ[SOCKET_ENV] = os.path.join(os.path.dirname(planted), "real.sock")
    os.symlink(ARGS[0], planted)
if BEHAVIOUR == "ready-exit":  # claims to be ready, then is gone before any call
    print(READY_LINE, flush=True)
    sys.exit(0)
if BEHAVIOUR == "exit-early":
    print("giving up before READY", file=sys.stderr, flush=True)
    sys.exit(5)
if BEHAVIOUR == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if BEHAVIOUR == "ponder":  # burn a core between turns (and during them)
    threading.Thread(target=spin_forever, daemon=True).start()
if BEHAVIOUR == "flood":
    # Past the referee's full-speed budget (process_player.FAST_BYTES, 4 MiB) before READY,
    # however busy the machine: flooding only during the match could fall short of it.
    flood_stderr_before_ready = ("flood " * 200 + "\n").encode() * ((4 << 20) // 1200 + 220)
    os.write(sys.stderr.fileno(), flood_stderr_before_ready)
    for stream in (sys.stdout, sys.stderr):
        threading.Thread(target=flood, args=(stream,), daemon=True).start()
serve(Hostile())
if BEHAVIOUR == "hang-up":
    time.sleep(3600)
