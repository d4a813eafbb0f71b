"""What ``/proc/PID/stat`` says about a process: the one place that parses it.

The command name (field 2, in parentheses) may itself hold spaces and parentheses, so
the fields are read after its *last* closing parenthesis. Numbering follows proc(5).
"""

from __future__ import annotations

import os
from pathlib import Path

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name: ``[0]`` is proc(5)'s
    field 3 (the state), ``[1]`` field 4 (the parent), and so on. Raises OSError if
    the process is gone."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def parent_of(pid: int) -> int:
    return int(stat_fields(pid)[1])


def state_of(pid: int) -> str:
    """One letter: R running, S sleeping, Z zombie, ... (proc(5), field 3)."""
    return stat_fields(pid)[0]


def start_ticks(pid: int) -> int:
    """When the process started, in clock ticks since boot (field 22): with the pid,
    it names one process even after the pid is reused."""
    return int(stat_fields(pid)[19])


def cpu_seconds(pid: int, *, reaped_children: bool = False) -> float:
    """User + system CPU of every thread of ``pid`` (fields 14-15); with
    ``reaped_children``, also that of the children it has waited for (fields 16-17)."""
    fields = stat_fields(pid)
    ticks = fields[11:15] if reaped_children else fields[11:13]
    return sum(int(t) for t in ticks) / _TICKS_PER_S
