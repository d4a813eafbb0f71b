"""One uid per concurrent sandboxed bot (like isolate's box uids).

Per-user kernel quotas (inotify instances, RLIMIT_NPROC, user namespaces, pending
signals, POSIX message queues...) are counted per uid, so bots sharing one could take
them from each other. A root referee therefore runs each sandboxed bot as its own uid
from ``NIWA_SANDBOX_UIDS`` (default 60000-60999), held by an exclusive ``flock`` on
``<STATE_DIR>/uids/<uid>.lock`` for the bot's whole life: separate referee processes
(ladder workers) never hand out the same uid twice, and the lock goes away with the
process that holds it, even after ``kill -9``. Uids that belong to an account of
this machine are skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

from niwa.errors import RefereeError

#: Root-only directory for the referee's sandbox state (uid locks, the mount point
#: sandboxes mount their private file systems on).
STATE_DIR = Path("/run/niwa-referee")
DEFAULT_RANGE = (60000, 60999)
RANGE_ENV = "NIWA_SANDBOX_UIDS"


class NoFreeUid(RefereeError, RuntimeError):
    """Every uid of the range is in use."""


def uid_range() -> tuple[int, int]:
    """The first and last sandbox uid, from ``NIWA_SANDBOX_UIDS=FIRST-LAST``."""
    text = os.environ.get(RANGE_ENV)
    if not text:
        return DEFAULT_RANGE
    try:
        first, last = (int(x) for x in text.split("-", 1))
    except ValueError:
        raise ValueError(
            f"{RANGE_ENV}={text!r}: write it as FIRST-LAST, e.g. 60000-60999"
        ) from None
    if not 1000 <= first <= last < 2**31:
        raise ValueError(f"{RANGE_ENV}={text!r}: need 1000 <= FIRST <= LAST < 2**31")
    return first, last


def state_dir(sub: str) -> Path:
    """``STATE_DIR/sub``, created root-only; refuses one that is not a plain directory
    owned by root (someone else could then take locks or plant links)."""
    path = STATE_DIR / sub
    for d in (STATE_DIR, path):
        with contextlib.suppress(FileExistsError):
            os.mkdir(d, 0o700)
        st = os.lstat(d)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
            raise RuntimeError(
                f"{d} must be a directory owned by root and writable only by it: "
                f"remove it and let niwa create it"
            )
    return path


@dataclass
class UidLease:
    uid: int
    _fd: int | None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def acquire() -> UidLease:
    """Take a free uid of the range, held until :meth:`UidLease.release` (or until
    this process dies)."""
    first, last = uid_range()
    locks = state_dir("uids")
    # Start at a pid-dependent slot so concurrent workers rarely contend for one.
    span = last - first + 1
    start = os.getpid() % span
    for i in range(span):
        uid = first + (start + i) % span
        fd = os.open(
            locks / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if _is_account(uid):
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise NoFreeUid(
        f"all {span} sandbox uids ({first}-{last}) are in use: widen {RANGE_ENV} "
        f"or run fewer matches at once"
    )


def _is_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True
