"""One game of a series as a job for a worker process, and the pool that runs them.

Each game runs in its own (spawned) worker process through :func:`niwa.referee.match.play_match`,
with the same :class:`~niwa.referee.match.MatchSpec` defaults as ``niwa play``: a worker
needs only the referee, and a game that wedges its process cannot stall the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from niwa.errors import CommandError
from niwa.referee.failures import Failure, SeatStatus
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import EndlessMatch, MatchSpec, play_match
from niwa.referee.pool import spawn_pool
from niwa.referee.replay import SeatOutcome

#: Decision statuses that count against a bot (docs/protocol.md, "Failures").
FAILURES = tuple(Failure)
#: ``--fail-on``: what of a bot directory's makes the run exit 1. ``out`` (the default):
#: a seat that went out; ``any``: any failed decision, even below ``--max-failures``.
FAIL_ON = (str(SeatStatus.OUT), "any")


def fails_run(status: str, failures: Mapping[str, int], builtin: bool, fail_on: str) -> bool:
    """Whether a seat makes the run exit 1 under ``--fail-on``: built-ins never do
    (they are the field, not the bot under test)."""
    if builtin:
        return False
    return status == SeatStatus.OUT or (fail_on == "any" and any(failures.values()))

J = TypeVar("J")
R = TypeVar("R")


@dataclass(frozen=True)
class GameJob:
    """One game: which bot sits in which seat (``bots``: a spec per seat, ``ids``: the
    series' name for each seat's bot), on which seed."""

    index: int
    game: str
    bots: tuple[str, ...]
    ids: tuple[str, ...]
    seed: int
    time_control: str
    options: dict[str, Any] = field(default_factory=dict)
    sandbox: bool = True
    ponder: bool = False
    replay: Path | None = None
    round: int = 0  # the tournament round, or the seed's number in a match
    #: How the replay names each seat's bot (a directory's ``name@version``); ()
    #: for the spec itself.
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class FirstFailure:
    """Where a seat first failed in one class, and the detail it got."""

    at: int | None  # the step; None at start-up
    detail: str


@dataclass(frozen=True)
class SeatRecord:
    """How one seat's bot did: its place (0 = first), score, and failures by class."""

    bot: str
    spec: str
    place: int
    score: float
    status: str  # a SeatStatus
    reason: str = ""
    at: int | None = None
    detail: str = ""
    stderr_tail: list[str] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    first_failures: dict[str, FirstFailure] = field(default_factory=dict)

    @property
    def builtin(self) -> bool:
        return self.spec.startswith("builtin:")


def out_says_it(kind: str, count: int, first: FirstFailure, seat: SeatOutcome | SeatRecord) -> bool:
    """Whether a seat's only failure of ``kind`` is the one that put it out (its OUT
    line already says it)."""
    return (seat.status == SeatStatus.OUT and count == 1 and kind == seat.reason
            and first.at == seat.at)


@dataclass(frozen=True)
class GameRecord:
    job: GameJob
    seats: list[SeatRecord]
    decisions: int
    wall_s: float
    match_id: str

    def places(self) -> list[int]:
        return [s.place for s in self.seats]

    def fails_run(self, fail_on: str) -> bool:
        """Whether a seat of a bot directory makes the series exit 1 (``--fail-on``)."""
        return any(fails_run(s.status, s.failures, s.builtin, fail_on) for s in self.seats)

    def to_json(self) -> dict[str, Any]:
        """The game's JSON line (bot-controlled text is left to the JSON encoder)."""
        return {
            "type": "game",
            "index": self.job.index,
            "round": self.job.round,
            "seed": self.job.seed,
            "match_id": self.match_id,
            "decisions": self.decisions,
            "wall_s": round(self.wall_s, 3),
            "replay": str(self.job.replay) if self.job.replay is not None else None,
            "seats": [
                {k: v for k, v in asdict(s).items() if k != "stderr_tail"} for s in self.seats
            ],
        }


class FailureCounter:
    """Counts each seat's failed decisions by class as the match goes (``on_step``),
    keeping the first of each class; :meth:`settle` adds a seat that failed to start
    (no step records that)."""

    def __init__(self, players: int) -> None:
        self.counts: list[dict[str, int]] = [{} for _ in range(players)]
        self.first: list[dict[str, FirstFailure]] = [{} for _ in range(players)]

    def __call__(self, step: Any, before: Any, after: Any) -> None:
        for move in step.moves:
            if move.seat >= 0 and move.status in FAILURES:
                self._add(move.seat, move.status, step.index, move.detail)

    def settle(self, seats: Sequence[SeatOutcome]) -> None:
        for seat in seats:
            if seat.status == SeatStatus.OUT and seat.at is None and seat.reason in FAILURES:
                self._add(seat.seat, seat.reason, None, seat.detail)

    def _add(self, seat: int, kind: str, at: int | None, detail: str) -> None:
        per = self.counts[seat]
        per[kind] = per.get(kind, 0) + 1
        self.first[seat].setdefault(kind, FirstFailure(at, detail))


def play_game(job: GameJob) -> GameRecord:
    """Run one game in this (worker) process."""

    configure_cli_logging()  # warnings only, on stderr
    counter = FailureCounter(len(job.bots))
    spec = MatchSpec.from_job(job.game, job.bots, job.options, job.seed, job.time_control)
    spec = replace(
        spec,
        bots=[bot if bot.is_builtin or not job.labels else replace(bot, label=job.labels[i])
              for i, bot in enumerate(spec.bots)],
        sandbox=job.sandbox,
        replay_path=job.replay,
        ponder=job.ponder,
        on_step=counter,
    )
    try:
        outcome = play_match(spec)
    except EndlessMatch as e:  # no result to count: the series stops, saying which game
        raise CommandError(
            f"game {job.index + 1} (seed {job.seed}, {' vs '.join(job.bots)}): {e}"
        ) from None
    counter.settle(outcome.seats)
    seats = []
    for i, seat in enumerate(outcome.seats):
        seats.append(SeatRecord(
            bot=job.ids[i],
            spec=job.bots[i],
            place=outcome.result.places[i],
            score=float(outcome.result.scores[i]),
            status=seat.status,
            reason=seat.reason,
            at=seat.at,
            detail=seat.detail,
            stderr_tail=list(seat.stderr_tail),
            failures=counter.counts[i],
            first_failures=counter.first[i],
        ))
    return GameRecord(job, seats, outcome.decisions, outcome.wall_s, outcome.match_id)


def run_jobs(
    jobs: Iterable[J],
    work: Callable[[J], R],
    workers: int,
    on_done: Callable[[R], bool],
) -> bool:
    """Run ``work(job)`` for each job in a pool of ``workers`` spawned processes, at
    most ``workers`` at once, calling ``on_done`` with each result as it finishes.

    ``on_done`` returning False stops the series: no further job starts, and the ones
    already running finish and are passed to ``on_done`` too. Returns True when every
    job ran. An exception in a job is raised here, after the running ones finish."""
    pending: Iterator[J] = iter(jobs)
    running: set[Future[R]] = set()
    stopped = False
    with spawn_pool(workers) as pool:

        def top_up() -> None:
            while not stopped and len(running) < workers:
                job = next(pending, None)
                if job is None:
                    return
                running.add(pool.submit(work, job))

        top_up()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                running.discard(future)
                if not on_done(future.result()):
                    stopped = True
            top_up()
    return not stopped and next(pending, None) is None
