"""Leader election over the store: one runner plays the matches, the others stand by.

A lease is a row (name, holder, expiry) in the store. Its holder renews it (a heartbeat)
well before it expires; anyone else takes it only once it has expired, so a runner that
was killed (``kill -9``, a lost machine) is replaced within one lease time. Every read
and write of the row runs in one transaction, and the expiry is read from the database
server's clock, so two runners never both hold it, whatever their machines' clocks say.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from niwa.ladder.db import Database

RUNNER = "runner"  # the lease of the runner that schedules and commits matches


def node_name() -> str:
    """This process, as logs and the lease name it: host, process id, a random part
    (a restarted process with a recycled pid is another holder)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class Holder:
    holder: str
    expires_in: float  # seconds left, by the database's clock (negative: expired)


class Lease:
    def __init__(self, db: Database, holder: str, seconds: float, name: str = RUNNER) -> None:
        if seconds <= 0:
            raise ValueError(f"a lease lasts more than 0 seconds (got {seconds})")
        self.db = db
        self.holder = holder
        self.seconds = seconds
        self.name = name
        #: The holder this lease was last taken from (expired or dead), if any: its
        #: sessions may still hold locks (:meth:`Database.end_sessions`).
        self.taken_from: str | None = None
        db.name_session(holder)

    def acquire(self) -> bool:
        """Take the lease if it is free or expired, renew it if ours; True if ours now."""
        with self.db.transaction() as db:
            before = db.one("SELECT holder FROM leases WHERE name = ?", (self.name,))
            # a row comes back only if this holder inserted or renewed it
            row = db.one(
                "INSERT INTO leases (name, holder, acquired_at, expires_at) "
                "VALUES (?, ?, {now}, {now} + ?) ON CONFLICT (name) DO UPDATE SET "
                "holder = excluded.holder, expires_at = excluded.expires_at, "
                "acquired_at = CASE WHEN leases.holder = excluded.holder "
                "THEN leases.acquired_at ELSE excluded.acquired_at END "
                "WHERE leases.holder = excluded.holder OR leases.expires_at < {now} "
                "RETURNING holder",
                (self.name, self.holder, self.seconds),
            )
        ours = row is not None
        if ours and before is not None and before["holder"] != self.holder:
            self.taken_from = str(before["holder"])
        return ours

    def take_from_dead(self) -> bool:
        """Take the lease at once from a holder that was a process of this machine and
        is gone (a ``kill -9`` then a restart needs no wait for the lease to run out).
        Only holders named by :func:`node_name` can be judged; True if ours now."""
        holder = self.current()
        if holder is None or not _dead_here(holder.holder):
            return False
        row = self.db.one(
            "UPDATE leases SET holder = ?, acquired_at = {now}, expires_at = {now} + ? "
            "WHERE name = ? AND holder = ? RETURNING holder",
            (self.holder, self.seconds, self.name, holder.holder),
        )
        if row is not None:
            self.taken_from = holder.holder
        return row is not None

    def release(self) -> bool:
        """Give the lease up at once (a clean stop): a standby need not wait it out.
        True if this holder had it (False: already released, or another's)."""
        row = self.db.one(
            "DELETE FROM leases WHERE name = ? AND holder = ? RETURNING holder",
            (self.name, self.holder),
        )
        return row is not None

    def current(self) -> Holder | None:
        row = self.db.one(
            "SELECT holder, expires_at - {now} AS left FROM leases WHERE name = ?", (self.name,)
        )
        return None if row is None else Holder(str(row["holder"]), float(row["left"]))


def _dead_here(holder: str) -> bool:
    """``holder`` is a :func:`node_name` of this host whose process is gone."""
    host, _, rest = holder.partition(":")
    pid, _, _ = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False
