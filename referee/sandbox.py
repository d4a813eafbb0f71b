"""Resource limits for a bot process (the sandbox proper follows)."""

from __future__ import annotations

from dataclasses import dataclass


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
    message_bytes: int = 1 << 20  # largest gRPC message accepted from the bot
