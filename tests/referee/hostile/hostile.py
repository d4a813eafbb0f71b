"""A bot that misbehaves in the way named by its first argument (tests/referee).

Behaviours that probe the sandbox answer normally and report what they saw in the
note of their first answer, so the test can read the outcome from the replay.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

from bots.sdk import Reply, Turn, serve

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
    """Stop the gRPC server a moment after answering (through the SDK's SIGTERM
    handler); the process lives on below without serving."""
    time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGTERM)


def flood(stream: object) -> None:
    line = ("flood " * 200 + "\n").encode()
    fd = stream.fileno()  # type: ignore[attr-defined]
    while True:
        os.write(fd, line)


class Hostile:
    def __init__(self) -> None:
        self.calls = 0

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
        if BEHAVIOUR == "illegal":
            return Reply(action={"no such": "action"})
        if BEHAVIOUR == "out-of-range":
            return len(turn.legal_actions)
        if BEHAVIOUR == "huge":
            return Reply(index=0, note="x" * (16 << 20))
        if BEHAVIOUR == "hang-up" and self.calls == 1:
            threading.Thread(target=hang_up).start()
        if BEHAVIOUR == "fork-bomb" and self.calls == 1:
            return Reply(index=0, note=fork_bomb())
        if self.calls == 1:
            probe = {"network": probe_network, "read": probe_read, "write": probe_write}
            if BEHAVIOUR in probe:
                return Reply(index=0, note=probe[BEHAVIOUR]())
        return 0


if BEHAVIOUR == "exit-early":
    print("giving up before READY", file=sys.stderr, flush=True)
    sys.exit(5)
if BEHAVIOUR == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if BEHAVIOUR == "flood":
    for stream in (sys.stdout, sys.stderr):
        threading.Thread(target=flood, args=(stream,), daemon=True).start()
serve(Hostile())
if BEHAVIOUR == "hang-up":
    time.sleep(3600)
