"""The guardian: a referee's bots do not outlive it, even after ``kill -9``.

bwrap's ``--die-with-parent`` sends SIGKILL when the referee dies, but a bot frozen
between its turns (the cgroup freezer, :meth:`niwa.referee.cgroups.Cgroup.freeze`) does
not act on it until it is thawed, and nobody is left to thaw it: those bots stayed,
frozen, until the next clean-up at start-up. So every referee process that makes a
bot's cgroup first starts one guardian: a small process of its own session (a signal
to the referee's process group does not reach it), outside every bot's group, that
waits on a pidfd for the referee to exit and then thaws, kills and removes the
referee's groups and run folders (:func:`niwa.referee.leftovers.leftovers` for that one
referee), sweeping :data:`SWEEPS` times in case a bot was being started at that
moment. While it waits it has imported nothing but the standard library's basics, and
it uses no CPU.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

#: Clean-up passes after the referee's death, :data:`SWEEP_GAP_S` apart.
SWEEPS = 3
SWEEP_GAP_S = 0.5

#: The referee process the running guardian watches (a forked child is another
#: referee and gets its own), and the guardian (kept: a dropped Popen warns).
_guarded: int | None = None
_guardian: subprocess.Popen[bytes] | None = None


def ensure() -> None:
    """Start this process's guardian unless it has one."""
    global _guarded, _guardian
    if _guarded == os.getpid():
        return
    _guardian = subprocess.Popen(
        [sys.executable, "-m", "niwa.referee.guardian", str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    _guarded = os.getpid()


def wait_for_exit(owner: int) -> None:
    """Return once process ``owner`` has exited. The pidfd is checked against our
    parent: if the referee died before it was opened, the pid may be another's."""
    try:
        pidfd = os.pidfd_open(owner)
    except ProcessLookupError:
        return
    try:
        if os.getppid() != owner:  # the referee is gone already
            return
        select.select([pidfd], [], [])
    finally:
        os.close(pidfd)


def main(argv: list[str]) -> int:
    owner = int(argv[0])
    wait_for_exit(owner)
    from niwa.referee.leftovers import leftovers  # only now: waiting costs no imports

    for sweep in range(SWEEPS):
        if sweep:
            time.sleep(SWEEP_GAP_S)
        leftovers(owner=owner)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
