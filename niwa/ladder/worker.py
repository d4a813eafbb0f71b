"""A worker process runs one match at a time through the referee.

Workers get a :class:`Job` of plain values and return a :class:`niwa.ladder.store.Finished`
(or raise); they never touch the database, so the ladder process commits every
result itself, in one transaction. The replay is written under a temporary name and
renamed into place only when the match is over, so a replay file at its final path
is always complete.
"""

from __future__ import annotations

import hashlib
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from niwa.ladder import balance_replay, logs
from niwa.ladder.balance import MatchBalance
from niwa.ladder.records import Finished, SeatResult
from niwa.referee.clock import TimeControl
from niwa.referee.fork import fork_start
from niwa.referee.match import BotSpec, MatchOutcome, MatchSpec, play_match
from niwa.referee.replay import parse

#: Characters of a seat's detail line kept in the store.
DETAIL_KEPT = 1000


@dataclass(frozen=True)
class Job:
    match_id: int
    game: str
    options: dict[str, Any]
    seed: int
    bots: tuple[str, ...]  # BotSpec text per seat: "builtin:NAME" or a bot folder
    bot_ids: tuple[int, ...]
    replay_path: str
    log_dir: str
    time_control: str
    builtins_in_process: bool = True
    labels: tuple[str, ...] = ()  # name@version per seat: how replay and logs name it
    #: Content hash of each seat's bot archive ("" for a built-in bot): how an executor
    #: on another machine gets the bot's files.
    archives: tuple[str, ...] = ()
    #: A fork (niwa.ladder.forks): the origin's recorded replay and the step it plays on
    #: from (-1: not a fork). The replay travels with the job, as the store keeps it.
    fork_replay: bytes = b""
    fork_at: int = -1


def init_worker(log_level: str, node: str = "", log_file: Path | None = None) -> None:
    """Runs once in each worker (which dies with the ladder: ``spawn_pool``): log like
    the ladder (naming its node, to its log file if it has one)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the ladder's to handle
    logs.configure(log_level, file=log_file)
    if node:
        structlog.contextvars.bind_contextvars(node=node)


def run_job(job: Job) -> Finished:
    """Play the match; raise if the referee cannot run it (not a bot's failure):
    :class:`niwa.referee.cgroups.LimitsUnavailable` when a submitted bot's limits cannot be
    enforced on this machine."""
    log = structlog.get_logger("niwa.ladder").bind(match=job.match_id, game=job.game)
    final = Path(job.replay_path)
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f"{final.name}.{os.getpid()}.part")
    Path(job.log_dir).mkdir(parents=True, exist_ok=True)
    bots = [_spec(job, seat) for seat in range(len(job.bots))]
    spec = replace(
        MatchSpec.from_job(job.game, bots, job.options, job.seed, job.time_control),
        sandbox=True,  # the ladder never runs a submitted bot outside the sandbox
        require_limits=True,  # nor without its cgroup limits (LimitsUnavailable)
        in_process=job.builtins_in_process,  # built-in bots are our code: no process needed
        replay_path=partial,
        log_dir=Path(job.log_dir),
        match_id=str(job.match_id),
        replay_stderr=False,  # replays are public; the store keeps every seat's stderr
    )
    if job.fork_at >= 0:
        spec = forked(spec, job.fork_replay, job.fork_at)
    log.info("match_started", bots=list(job.labels or job.bots))
    try:
        outcome = play_match(spec)
        digest = hashlib.sha256(partial.read_bytes()).hexdigest()
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
    log.info("match_played", places=list(outcome.result.places), wall_s=outcome.wall_s)
    return replace(finished(outcome, job.bot_ids, digest), balance=balance_of(final, log))


def balance_of(replay: Path, log: Any) -> MatchBalance | None:
    """The match's balance figures, where the replay was just written (a worker process,
    not the runner's loop); None (the backfill's to retry) if they cannot be had."""
    try:
        return balance_replay.from_file(replay)
    except Exception as e:  # a game hook's bug must not lose the match's result
        log.warning("balance_figures_failed", error=f"{type(e).__name__}: {e}")
        return None


def forked(spec: MatchSpec, origin: bytes, at: int) -> MatchSpec:
    """``spec`` played on from step ``at`` of the replay ``origin``: its steps before
    ``at`` as recorded, at its options, time control and failure limit (the seats
    stay ``spec``'s). ForkRefused if it cannot be (niwa.referee.fork)."""
    replay = parse(origin, "the replay this match forks")
    start, _ = fork_start(replay, at, hashlib.sha256(origin).hexdigest())
    h = replay.header
    clock = TimeControl(h.time_control["per_decision_ms"], h.time_control["bank_ms"])
    return replace(spec, fork=start, options=h.options, time_control=clock,
                   max_failures=h.max_failures)  # fmt: skip


def finished(outcome: MatchOutcome, bot_ids: Sequence[int], digest: str) -> Finished:
    """What the store records of a played match (``bot_ids``: the ladder's bot per
    seat; ``digest``: its replay's SHA-256)."""
    results = tuple(
        SeatResult(
            seat=s.seat,
            bot_id=bot_ids[s.seat],
            place=outcome.result.places[s.seat],
            score=float(outcome.result.scores[s.seat]),
            status=s.status,
            reason=s.reason,
            out_step=s.at,
            detail=s.detail[:DETAIL_KEPT],
            stderr_tail=tuple(outcome.stderr_tails[s.seat]),  # for its owner, kept a while
        )
        for s in outcome.seats
    )
    return Finished(results, outcome.decisions, outcome.wall_s, digest, stderr_kept=True)


def _spec(job: Job, seat: int) -> BotSpec:
    """The seat's bot; a submitted one labelled ``name@version`` for the replay, so no
    reader learns (or depends on) where the ladder stores it."""
    spec = BotSpec.parse(job.bots[seat])
    if spec.is_builtin or not job.labels:
        return spec  # "builtin:NAME": a name already, and one verify can check
    return replace(spec, label=job.labels[seat])
