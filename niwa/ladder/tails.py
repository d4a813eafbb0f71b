"""Every seat's stderr tail, kept for the bot's owner for a while.

The worker sends the end of each seat's stderr (at most
:data:`niwa.referee.stderr_tail.REPLAY_TAIL_BYTES`) with the match's results; the store keeps
it beside them (``results.stderr_tail``), and only the bot's owner and the admins read
it (``niwa.ladder.reads``). The admin sets how long (``niwa ladder serve --stderr-days``,
kept in the store); the runner's housekeeping (:func:`expire`) then empties the tails of
matches that finished longer ago, removes the referee's stderr files of those matches
(``DATA/logs/MATCH``) and records when, so ``niwa ladder logs`` can tell a tail that
expired from one that was never kept.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass

from niwa.ladder.store import OLD_STDERR, Store

#: Days a tail is kept unless the admin says otherwise.
DEFAULT_DAYS = 14
DAY_S = 86400.0
_DAYS = "stderr.days"
#: The finish number (seq) up to which tails were removed: housekeeping resumes there.
_DONE_THROUGH = "stderr.expired_through_seq"
#: Matches looked at per transaction.
BATCH = 500

#: The states :func:`state` reports (``SeatLog.kept`` in the API).
KEPT = "kept"  # every seat's tail was kept, and still is
EXPIRED = "expired"  # removed by housekeeping
OUT_ONLY = "out_only"  # finished before ladders kept the tails of seats that stayed in


@dataclass(frozen=True)
class TailState:
    kept: str  # KEPT, EXPIRED or OUT_ONLY
    until: float  # KEPT, OUT_ONLY: when it is due to go; EXPIRED: when it went


def days(store: Store) -> int:
    """How many days tails are kept (the admin's setting, else DEFAULT_DAYS)."""
    return store.settings.int_setting(_DAYS, DEFAULT_DAYS)


def set_days(store: Store, value: int) -> None:
    if value < 1:
        raise ValueError(
            f"--stderr-days {value}: keep the bots' stderr tails at least 1 day "
            f"(default {DEFAULT_DAYS})"
        )
    store.settings.set_setting(_DAYS, str(value))


def expire(store: Store, now: float | None = None) -> list[int]:
    """Remove the tails of every match that finished more than :func:`days` ago, with
    its stderr files on this node; return those matches' ids."""
    now = time.time() if now is None else now
    cutoff = now - days(store) * DAY_S
    removed: list[int] = []
    while True:
        done_through = int(store.settings.setting(_DONE_THROUGH) or 0)
        rows = store.db.execute(
            "SELECT id, seq, finished_at FROM matches WHERE seq > ? ORDER BY seq LIMIT ?",
            (done_through, BATCH),
        )
        # Finish numbers and times go up together: stop at the first match still kept.
        due = []
        for r in rows:
            if float(r["finished_at"]) >= cutoff:
                break
            due.append(r)
        if due:
            _remove(store, [int(r["id"]) for r in due], int(due[-1]["seq"]), now)
            removed += [int(r["id"]) for r in due]
        if len(due) < BATCH:
            return removed


def _remove(store: Store, ids: list[int], through: int, now: float) -> None:
    with store.db.transaction() as db:
        marks = ", ".join("?" for _ in ids)
        db.execute(
            f"UPDATE results SET stderr_tail = '[]' WHERE match_id IN ({marks}) "
            "AND stderr_tail <> '[]'",
            ids,
        )
        old = db.execute(  # before schema 3 the tail was appended to the reason
            f"SELECT match_id, seat, reason FROM results WHERE match_id IN ({marks}) "
            "AND reason LIKE ?",
            [*ids, f"%{OLD_STDERR}%"],
        )
        db.execute_many(
            "UPDATE results SET reason = ? WHERE match_id = ? AND seat = ?",
            [(str(r["reason"]).partition(OLD_STDERR)[0], r["match_id"], r["seat"]) for r in old],
        )
        db.execute_many(
            "INSERT INTO stderr_kept (match_id, every_seat, removed_at) VALUES (?, 0, ?) "
            "ON CONFLICT (match_id) DO UPDATE SET removed_at = excluded.removed_at",
            [(i, now) for i in ids],
        )
        store.settings.set_setting(_DONE_THROUGH, str(through))
    for i in ids:  # after the commit: a failed commit leaves everything as it was
        shutil.rmtree(store.files.log_dir(i), ignore_errors=True)


def state(store: Store, match_id: int, finished_at: float) -> TailState:
    """What became of the tails of a finished match."""
    row = store.db.one(
        "SELECT every_seat, removed_at FROM stderr_kept WHERE match_id = ?", (match_id,)
    )
    if row is not None and row["removed_at"] is not None:
        return TailState(EXPIRED, float(row["removed_at"]))
    due = finished_at + days(store) * DAY_S
    return TailState(KEPT if row is not None and row["every_seat"] else OUT_ONLY, due)
