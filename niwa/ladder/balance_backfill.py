"""`niwa ladder balance --backfill`: the balance figures of the rated matches that
finished before the store kept them (or whose figures failed at commit), read from
their stored replays, a batch at a time so a long backfill can stop and go on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import structlog

from niwa.ladder import balance_replay
from niwa.ladder.reads import Reads
from niwa.ladder.store import Store
from niwa.referee.replay import parse

#: Matches read per batch: one short transaction each, a progress line per batch.
BATCH = 50

log = structlog.get_logger("niwa.ladder.balance")


@dataclass
class Progress:
    total: int  # waiting when the backfill began
    counted: int = 0
    skipped: int = 0  # no replay, or one that does not re-simulate: left out for good

    @property
    def done(self) -> int:
        return self.counted + self.skipped


def backfill(
    store: Store, report: Callable[[Progress], None] | None = None, limit: int | None = None
) -> Progress:
    """Work through the backlog (at most ``limit`` matches), calling ``report`` after
    each batch; first, put on it any rated match an older node recorded without figures.
    A match is taken off the backlog whatever becomes of it: a replay that cannot be
    read is marked skipped (balance_skipped, with the cause, also in a warning) and not
    tried again."""
    store.balance.enqueue_missing()
    progress = Progress(store.balance.backlog_count())
    wanted = progress.total if limit is None else min(limit, progress.total)
    reads = Reads(store)
    while progress.done < wanted:
        batch = store.balance.backlog(min(BATCH, wanted - progress.done))
        if not batch:
            break
        for match_id, game in batch:
            reason = ""
            try:
                content = reads.replay(match_id).content
                figures = balance_replay.from_replay(parse(content, f"match {match_id}"))
            except Exception as e:  # NotFound, ReplayTampered, ReplayError, a hook's bug
                reason = f"{type(e).__name__}: {e}"
                log.warning("balance_backfill_skipped", match=match_id, reason=reason)
                figures = None
            if store.balance.backfill(match_id, game, figures, reason):
                progress.counted += 1
            else:
                progress.skipped += 1
        if report is not None:
            report(progress)
    return progress
