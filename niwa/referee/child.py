"""A child process driven by trio, spawned from trio's own thread.

Why not ``trio.lowlevel.open_process``: it forks from a worker thread, and bwrap's
``--die-with-parent`` (PR_SET_PDEATHSIG) fires when the *thread* that forked it
exits, which trio's thread cache does after ten idle seconds: every sandboxed bot
was killed ten seconds into its match. Forking here blocks the event loop for the
fork/exec only (about a millisecond); the pipes become trio streams and the exit is
awaited on a pidfd, so no thread is involved at all.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO, Any

import trio


def _take(pipe: IO[Any] | None) -> trio.lowlevel.FdStream:
    assert pipe is not None
    fd = os.dup(pipe.fileno())
    pipe.close()
    return trio.lowlevel.FdStream(fd)


class Child:
    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: str, pass_fds: Sequence[int] = ()
    ) -> None:
        self._popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,  # its own process group, signalled as a whole
            pass_fds=tuple(pass_fds),  # e.g. bwrap's --seccomp and --info-fd
        )
        self.pid = self._popen.pid
        self.stdout = _take(self._popen.stdout)
        self.stderr = _take(self._popen.stderr)

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def wait(self) -> int:
        """Wait for the exit and reap the process."""
        try:
            pidfd = os.pidfd_open(self.pid)
        except OSError:  # exited and reaped already, or a kernel without pidfd
            while self._popen.poll() is None:
                await trio.sleep(0.01)
            return self._popen.returncode
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)
        return self._popen.wait()
