"""Suspending a bot that keeps going out of its rated matches.

Validation is one match; a bot that plays it properly and then fails every rated match
would stay ranked (and waste every opponent's match). After ``N`` rated matches in a
row that a bot went out of (``N`` is the admin's ``--suspend-after``, kept in the store;
0: never), the runner suspends it: it is no longer scheduled, and its status and reason
(``niwa ladder bots``, its web page) tell its owner why and what to do.
"""

from __future__ import annotations

import structlog

from niwa.ladder.store import ACTIVE, RATED, SUSPENDED, Store
from niwa.referee.failures import SeatStatus

SETTING = "suspend_after"
DEFAULT = 5

_log = structlog.get_logger("niwa.ladder")


def after(store: Store) -> int:
    """Rated matches in a row a bot may go out of before it is suspended (0: never)."""
    return store.settings.int_setting(SETTING, DEFAULT)


def set_after(store: Store, value: int) -> None:
    if value < 0:
        raise ValueError(
            f"--suspend-after {value}: give a number of matches, or 0 to never suspend "
            f"(default {DEFAULT})"
        )
    store.settings.set_setting(SETTING, str(value))


def reason(n: int, match_id: int, why: str) -> str:
    return (
        f"went out of {n} rated matches in a row (the last, match {match_id}: "
        f"{why}); fix the bot and submit a new version (niwa ladder submit)"
    )


def check(store: Store, bot_ids: tuple[int, ...]) -> list[int]:
    """Suspend each active bot of ``bot_ids`` whose last ``after(store)`` rated matches
    all saw it go out; return the suspended bots' ids."""
    n = after(store)
    if n == 0:
        return []
    suspended = []
    for bot_id in dict.fromkeys(bot_ids):
        if store.bots.bot(bot_id).status != ACTIVE:
            continue
        rows = store.db.execute(
            "SELECT r.match_id, r.status, r.reason FROM results r "
            "JOIN matches m ON m.id = r.match_id "
            "WHERE r.bot_id = ? AND m.kind = ? AND m.seq IS NOT NULL "
            "ORDER BY m.seq DESC LIMIT ?",
            (bot_id, RATED, n),
        )
        if len(rows) < n or any(r["status"] == SeatStatus.OK for r in rows):
            continue
        last = rows[0]
        store.bots.set_bot_status(
            bot_id, SUSPENDED, reason(n, int(last["match_id"]), str(last["reason"]))
        )
        _log.warning("bot_suspended", bot_id=bot_id, after=n, last_match=int(last["match_id"]))
        suspended.append(bot_id)
    return suspended
