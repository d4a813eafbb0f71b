"""A ladder's running match, watched live (:mod:`niwa.web.live`) from the web process.

The web process opens the store read-only and plays nothing: it reads the replay a
worker of this machine is writing under the store's data folder (``replays/<id>.
attempt<n>.jsonl.<pid>.part``, renamed when the match ends). A match the Ray executor
plays on another node writes its replay in that node's temporary folder and ships it
only when the match ends, so there is nothing here to read: the page says so.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio

from niwa.ladder.reads import Reads
from niwa.ladder.statuses import MatchState
from niwa.ladder.store import Match, Store
from niwa.web.live import RETRY_MS, Hub, sse, unavailable

#: How long a stream waits for a running match's replay file to appear (a worker
#: creates it as it starts the match, after the store says it runs).
FILE_WAIT_S = 10.0
FILE_POLL_S = 0.2
ELSEWHERE = (
    "no replay of it is being written in this ladder's data folder: it is played on "
    "another machine (the Ray executor sends a replay only when its match ends). Its "
    "replay appears on this page once the match has finished"
)
ROUND = (
    "the other matches of its duplicate round, which deal the same cards, are not over: "
    "its replay appears on this page once the whole round has finished"
)


def replay_being_written(store: Store, match: Match) -> Path | None:
    """The file of the attempt now playing ``match`` on this machine, if there is one
    (the newest, should a dropped attempt have left its own)."""
    attempt = store.files.attempt_replay_path(match.id, match.attempts)
    found = list(attempt.parent.glob(f"{attempt.name}.*.part"))
    if attempt.exists():  # played to the end, not yet recorded
        found.append(attempt)
    mtimes = []
    for path in found:
        try:
            mtimes.append((path.stat().st_mtime, path))
        except OSError:  # renamed or removed in between
            continue
    return max(mtimes)[1] if mtimes else None


async def stream(reads: Reads, hub: Hub, match: Match, after: int) -> AsyncIterator[str]:
    """The match's live events (:meth:`Hub.watch`), or one event saying why there are
    none: ``end`` for a finished match (the page then shows its replay)."""
    problem = await anyio.to_thread.run_sync(_why_not, reads, match)
    path = None
    if not problem:
        deadline = time.monotonic() + FILE_WAIT_S
        while True:
            path = await anyio.to_thread.run_sync(replay_being_written, reads.store, match)
            if path is not None or time.monotonic() > deadline:
                break
            await anyio.sleep(FILE_POLL_S)
        problem = "" if path is not None else ELSEWHERE
    if path is None:
        yield f"retry: {RETRY_MS}\n\n"
        yield sse("end", {"frames": 0}) if problem == MatchState.DONE else unavailable(problem)
        return
    async for text in hub.watch(path, after):
        yield text


def _why_not(reads: Reads, match: Match) -> str:
    """Why ``match`` cannot be watched live ("" if it can; "done" once it has ended)."""
    if match.state == MatchState.DONE:
        return str(MatchState.DONE)
    if match.state == MatchState.QUEUED:
        return "it has not started yet: reload this page once it runs"
    if match.state != MatchState.RUNNING:
        return f"it is {match.state}"
    if reads.round_unfinished(match):
        return ROUND
    return ""
