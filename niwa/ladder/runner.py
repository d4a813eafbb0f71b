"""The ladder's engine room: keep matches queued and running, commit what finishes.

One process owns the scheduling and every write of results; a pool of worker
processes (one per core by default) plays the matches through the referee. On start
the runner puts back into the queue every match a previous run left "running": with
the commit rules of :mod:`niwa.ladder.store` this makes a ``kill -9`` at any moment safe;
it also removes what the killed run's referees left (:mod:`niwa.referee.leftovers`: bots'
cgroups and run folders, partial replays).

Sandboxed bots are only played with every documented limit enforced: when a worker
reports :class:`niwa.referee.cgroups.LimitsUnavailable`, the match goes back to the queue
and the runner stops with that error (a one-line message naming the fix).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from niwa import engine
from niwa.errors import LadderError
from niwa.ladder import (
    drain,
    executors,
    forks,
    leagues,
    metrics,
    scheduler,
    seasons,
    skill,
    sparring,
    submission,
    suspension,
    tails,
)
from niwa.ladder.archive import ArchiveError
from niwa.ladder.db import ConnectionLost, DatabaseError
from niwa.ladder.drain import DRAINED, DRAINING, REQUESTED, Drain
from niwa.ladder.lease import Lease, node_name
from niwa.ladder.schema import SchemaTooNew
from niwa.ladder.store import ACTIVE, FORKED, VALIDATION, Finished, Match, Store, StoreError
from niwa.ladder.worker import Job
from niwa.referee import cgroups
from niwa.referee.cgroups import LimitsUnavailable
from niwa.referee.leftovers import leftovers
from niwa.referee.pool import cores
from niwa.referee.sandbox import BotLimits

#: How often the leader removes expired stderr tails (niwa.ladder.tails).
HOUSEKEEPING_S = 600.0
#: How often a leading runner looks for a drain request (niwa.ladder.drain); a standby looks
#: at each poll of the lease.
DRAIN_POLL_S = 1.0
#: The longest wait between two attempts to reach a lost cluster again.
RECONNECT_MAX_S = 30.0


@dataclass(frozen=True)
class Settings:
    db_url: str
    data_dir: Path | None = None
    workers: int = 0  # 0: one per core
    concurrency: int = 0  # matches running at once; 0: one per worker
    max_matches: int | None = None  # stop after this many finished rated matches
    duplicate: bool = False  # play each pairing's seed under every seat rotation
    time_control: str = "1s+30s"
    seed: int | None = None  # scheduler's choices (pairings, seeds); None: fresh
    log_level: str = "info"
    #: Every log event of the runner's process and its local workers as JSON lines in
    #: this file, only warnings and errors on stderr (the demo); None: all on stderr.
    log_file: Path | None = None
    games: tuple[str, ...] = ()  # the games this ladder plays; empty: every registered game
    builtins_in_process: bool = True  # False: built-in bots run sandboxed, like submissions
    #: Built-in bots ("builtin:greedy") rated in every game beside the submitted ones;
    #: None: as kept in the store (``serve --sparring`` keeps it there).
    sparring: tuple[str, ...] | None = None
    #: Seconds a runner's lease lasts without a heartbeat: a standby runner takes over
    #: at most this long (plus one poll, a quarter of it) after the leader died.
    lease_s: float = 20.0
    node: str = ""  # this runner's name in the logs and the lease; "": host:pid:random
    executor: str = executors.LOCAL  # where matches run: executors.KINDS
    ray_address: str = ""  # executor "ray": the cluster's address; "": this machine's

    def game_names(self) -> list[str]:
        return list(self.games) or engine.games()

    @property
    def worker_count(self) -> int:
        return self.workers or cores()


FinishedHook = Callable[[Match], None]


class Stop(threading.Event):
    """The event that stops a runner, remembering the signal that set it and when (by
    ``time.monotonic``), so the runner can report how long it took to hand over."""

    def __init__(self) -> None:
        super().__init__()
        self.signal = ""
        self.at: float | None = None

    def signalled(self, signum: int) -> None:
        if self.at is None:
            self.signal, self.at = signal.Signals(signum).name, time.monotonic()
        self.set()


class _StoppedJoining(LadderError):
    """The runner was stopped while its Ray driver joined the cluster."""


class LeaseLost(LadderError):
    """Another runner holds the store's lease now: this one must stop playing."""

    def __init__(self, holder: str) -> None:
        super().__init__(f"the runner lease is held by {holder or 'nobody'}")
        self.holder = holder


class Runner:
    def __init__(self, settings: Settings, on_finished: FinishedHook | None = None) -> None:
        self.settings = settings
        self.on_finished = on_finished
        self.rng = random.Random(settings.seed)
        self.node = settings.node or node_name()
        self.log = structlog.get_logger("niwa.ladder").bind(node=self.node)
        self._renewed = 0.0  # when the lease was last renewed (time.monotonic)
        self.rated_finished = 0
        self._games_turn = 0
        self._waiting: dict[str, str] = {}  # game -> why it cannot play, while it cannot
        #: Whether sparring partners are active (``--sparring``): they then play only at
        #: a submitted bot's table. Without it (the demo) built-ins play each other.
        self._sparring = False
        #: Seconds this process spent scheduling, claiming and recording matches (the
        #: store's share of the ladder's time; ``niwa bench ladder`` reports it).
        self.store_seconds = 0.0
        self._housekept = -HOUSEKEEPING_S  # time.monotonic() of the last housekeeping
        self._drain: Drain | None = None  # while draining: the progress last reported
        self._drain_until = 0.0  # time.monotonic() after which the rest is handed back
        self._drain_polled = -DRAIN_POLL_S
        #: A drain request was carried out (the lease released, ``stop`` set).
        self.drained = False
        #: What this runner is doing, for /readyz: starting, leading, standing_by, stopped
        self.role = "starting"
        #: Seconds before connecting the executor again after it lost its cluster
        #: (doubling up to RECONNECT_MAX_S); 0: connected, or never lost.
        self._reconnect_s = 0.0
        #: The current season's games and time control, read at each scheduling turn
        #: (an admin may start a season while the runner plays).
        self._rules = seasons.Rules("", tuple(settings.game_names()), settings.time_control)

    def run(self, stop: threading.Event) -> int:
        """Play until ``stop`` is set or ``max_matches`` rated matches finished;
        return how many rated matches finished.

        Only the holder of the store's runner lease plays: another runner started on
        the same store waits as a standby and takes over when the leader's lease lapses
        (a leader that finds its lease taken goes back to standing by)."""
        s = self.settings
        store = Store.open(s.db_url, s.data_dir)
        drain.forget(store, self.node)  # a request left for an earlier run of this name
        lease = Lease(store.db, self.node, s.lease_s)
        try:
            while True:
                try:
                    if self._stand_by(store, lease, stop):
                        self._lead(store, lease, stop)
                    break
                except LeaseLost as e:
                    self._playing(False)
                    self.log.error("lease_lost", holder=e.holder, effect="standing by")
                except ConnectionLost as e:
                    self._playing(False)
                    # Whatever this runner was doing, another may have taken over:
                    # start again from standing by, on a new connection.
                    self.log.error(
                        "store_connection_lost", error=str(e), effect="reconnecting, standing by"
                    )  # fmt: skip
                    with contextlib.suppress(Exception):
                        store.close()
                    reopened = self._reopen(stop)
                    if reopened is None:
                        return self.rated_finished  # stopped while the store was away
                    store = reopened
                    lease = Lease(store.db, self.node, s.lease_s)
        finally:
            self._playing(False, "stopped")
            self._release(lease, stop)
            with contextlib.suppress(Exception):
                store.close()
        return self.rated_finished

    def _release(self, lease: Lease, stop: threading.Event) -> None:
        """Give the lease up (once, idempotent) and log it with what stopped us: a
        standby takes over at its next poll instead of waiting the lease out."""
        try:
            released = lease.release()
        except Exception as e:  # a store gone away cannot be told: the lease runs out
            self.log.warning("lease_kept", error=str(e), effect="it expires by itself")
            return
        if not released:
            return
        why: dict[str, object] = {}
        if isinstance(stop, Stop) and stop.at is not None:
            why = {"signal": stop.signal, "after_signal_s": round(time.monotonic() - stop.at, 3)}
        self.log.info("lease_released", **why)

    def _reopen(self, stop: threading.Event) -> Store | None:
        """A new connection to the store once it answers again (None: stopped first).
        The waits grow from 1 s to 30 s: a server that ends every session, or is
        restarting, is not hammered."""
        wait = 1.0
        while not stop.wait(wait):
            try:
                return Store.open(self.settings.db_url, self.settings.data_dir)
            except SchemaTooNew:  # a newer niwa took the store over: no retry helps
                raise
            except DatabaseError as e:
                self.log.error("store_unreachable", error=str(e), retry_in_s=min(2 * wait, 30))
                wait = min(2 * wait, 30.0)
        return None

    def _playing(self, leading: bool, otherwise: str = "standing_by") -> None:
        self.role = "leading" if leading else otherwise
        metrics.set_leading(leading)

    def _stand_by(self, store: Store, lease: Lease, stop: threading.Event) -> bool:
        """Wait until this runner holds the lease (True) or is stopped or drained
        (False)."""
        announced = False
        while not stop.is_set():
            request = self._drain_request(store, every=0.0)
            if request is not None:  # nothing in flight: drained at once
                self._drain = replace(request, state=DRAINING)
                self._drained(store, lease, stop, [])
                return False
            if lease.acquire() or lease.take_from_dead():
                self._playing(True)
                self._renewed = time.monotonic()
                self.log.info("runner_leading", lease_s=lease.seconds)
                self._end_old_sessions(lease)
                return True
            if not announced:
                self._playing(False)
                holder = lease.current()
                self.log.info(
                    "runner_standby", leader=holder.holder if holder else "",
                    expires_in=round(holder.expires_in, 1) if holder else 0.0,
                )  # fmt: skip
                announced = True
            stop.wait(lease.seconds / 4)
        return False

    def _end_old_sessions(self, lease: Lease) -> None:
        """End the sessions of the runner this lease was taken from: paused in the
        middle of a write (a stalled machine), one holds its row locks for as long as
        it stays paused, and the matches it was recording could never be put back."""
        previous, lease.taken_from = lease.taken_from, None
        if previous is None:
            return
        try:
            ended = lease.db.end_sessions(previous)
        except DatabaseError as e:
            self.log.warning("old_sessions_kept", previous=previous, error=str(e))
            return
        self.log.info("lease_taken_over", previous=previous, sessions_ended=ended)

    def _heartbeat(self, lease: Lease) -> None:
        """Renew the lease every quarter of its time; raise LeaseLost if another took it."""
        if time.monotonic() - self._renewed < lease.seconds / 4:
            return
        if not lease.acquire():
            holder = lease.current()
            raise LeaseLost(holder.holder if holder else "")
        self._renewed = time.monotonic()

    def _lead(self, store: Store, lease: Lease, stop: threading.Event) -> None:
        """Play as the leader: first put back what a dead leader left running."""
        requeued = store.matches.requeue_running()
        if requeued:
            self.log.warning("matches_requeued", matches=requeued)
        leftovers(store.data_dir, log=self.log)  # what a killed run left; logs the counts
        self._drop_attempts(store)
        copied = submission.keep_archives(store)
        if copied:
            self.log.info("archives_kept_in_store", archives=copied)
        self._take_partners(store)
        problem = cgroups.probe(BotLimits())
        if problem:
            self.log.error(
                "limits_unavailable", problem=problem, fix=cgroups.FIX,
                effect="matches with submitted bots will be refused",
            )
        while not stop.is_set() and not self._enough():
            self._run_pool(store, lease, stop)

    def _drop_attempts(self, store: Store) -> None:
        """Remove the replays of attempts never recorded (this node's in flight when it
        died or lost the lease): the matches were put back, and are played again."""
        dropped = sorted((store.data_dir / "replays").glob("*.attempt*.jsonl"))
        for path in dropped:
            path.unlink(missing_ok=True)
        if dropped:
            self.log.info("dropped_attempts_removed", replays=[p.name for p in dropped])

    def _take_partners(self, store: Store) -> None:
        """Make the chosen (or kept) sparring partners the active built-ins."""
        names = self.settings.game_names()
        partners = sparring.apply(store, names, self.settings.sparring)
        self._sparring = bool(partners)
        if partners:
            self.log.info("sparring_partners", bots=partners, games=names)

    def _enough(self) -> bool:
        limit = self.settings.max_matches
        return limit is not None and self.rated_finished >= limit

    def _pool(self, store: Store, lease: Lease, stop: threading.Event) -> executors.Executor:
        s = self.settings

        def waiting() -> None:  # called while a Ray driver joins its cluster
            self._heartbeat(lease)
            if stop.is_set():
                raise _StoppedJoining

        return executors.start(
            s.executor, s.worker_count, s.log_level, self.node, s.ray_address,
            lambda digest: submission.archive_bytes(store, digest), s.log_file, waiting,
        )  # fmt: skip

    def _run_pool(self, store: Store, lease: Lease, stop: threading.Event) -> None:
        """Play with one pool until stopped or ``max_matches`` finished; each turn
        schedules, claims and collects. A broken pool fails its matches and returns
        (:meth:`run` starts a fresh one)."""
        in_flight: dict[Future[Finished], Match] = {}
        try:
            pool = self._pool(store, lease, stop)
        except _StoppedJoining:
            return
        except ConnectionError as e:
            if isinstance(e, PermissionError):
                raise  # the cluster refused our token: no retry helps, the operator must
            # A head that is down (or not up yet) comes back: wait, keeping the lease.
            wait = self._reconnect_s or 1.0
            self.log.error("executor_unreachable", error=str(e), retry_in_s=wait)
            self._pause(lease, stop, wait)
            self._reconnect_s = min(2 * wait, RECONNECT_MAX_S, lease.seconds / 4)
            return
        if self._reconnect_s:
            self.log.info("executor_reconnected", executor=self.settings.executor)
        self._reconnect_s = 0.0
        lost = False
        try:
            while not stop.is_set():
                self._heartbeat(lease)
                self._housekeep(store)
                if self._draining(store, lease, stop, in_flight):
                    return
                capacity = self.settings.concurrency or pool.slots
                started = time.perf_counter()
                if self._drain is None:  # a draining runner claims nothing new
                    self._schedule(store, capacity)
                    self._claim(store, pool, in_flight, capacity)
                metrics.QUEUE_DEPTH.set(store.matches.queued_count())
                self.store_seconds += time.perf_counter() - started
                if not in_flight:
                    if self._enough():
                        return
                    stop.wait(0.5)  # nothing to play: wait for bots to arrive
                    continue
                self._collect(store, in_flight)
                if self._enough() and not in_flight:
                    return
        except BrokenProcessPool:
            self._recover(store, in_flight)
        except executors.ExecutorLost:  # its matches are no bot's failures: hand them back
            handed = store.matches.hand_back(list(in_flight.values()))
            in_flight.clear()
            self.log.warning("matches_requeued", matches=handed, reason="executor lost")
            lost = True
            self._reconnect_s = 1.0
        except (LeaseLost, ConnectionLost):  # the matches in flight are another's now
            lost = True
            raise
        except LimitsUnavailable as e:  # no bot's fault: hand every match back, stop
            self.log.error("limits_unavailable", error=str(e))
            store.matches.requeue_running()
            stop.set()
            raise
        finally:
            if stop.is_set() and in_flight:  # asked to stop: hand the matches back now
                requeued = store.matches.requeue_running()
                self.log.info("matches_requeued", matches=requeued, reason="stopping")
            if stop.is_set():
                # running tasks are cancelled first (their results would be ignored
                # anyway), then the lease goes before the executor's slower shutdown
                pool.cancel()
                self._release(lease, stop)
            pool.shutdown(wait=not (stop.is_set() or lost))

    def _drain_request(self, store: Store, every: float = DRAIN_POLL_S) -> Drain | None:
        """A drain request for this runner not yet taken (looked for at most ``every``
        seconds apart)."""
        if time.monotonic() - self._drain_polled < every:
            return None
        self._drain_polled = time.monotonic()
        request = drain.read(store, self.node)
        return request if request is not None and request.state == REQUESTED else None

    def _draining(
        self, store: Store, lease: Lease, stop: threading.Event,
        in_flight: dict[Future[Finished], Match],
    ) -> bool:  # fmt: skip
        """Carry out a drain request: claim nothing more, let the matches in flight
        finish until the deadline, then hand back the rest; True once drained."""
        if self._drain is None:
            request = self._drain_request(store)
            if request is None:
                return False
            self._drain = replace(request, state=DRAINING, leader=True, in_flight=len(in_flight))
            self._drain_until = time.monotonic() + request.deadline_s
            self.log.warning(
                "runner_draining", matches=sorted(m.id for m in in_flight.values()),
                deadline_s=request.deadline_s,
            )  # fmt: skip
            drain.write(store, self.node, self._drain)
        if in_flight and time.monotonic() < self._drain_until:
            done = self._drain.finished + self._drain.in_flight - len(in_flight)
            if done != self._drain.finished:
                self._drain = replace(self._drain, finished=done, in_flight=len(in_flight))
                drain.write(store, self.node, self._drain)
            return False
        left = list(in_flight.values())
        in_flight.clear()  # what is left is the queue's again, never this runner's
        self._drain = replace(
            self._drain, finished=self._drain.finished + self._drain.in_flight - len(left)
        )
        self._drained(store, lease, stop, store.matches.hand_back(left))
        return True

    def _drained(
        self, store: Store, lease: Lease, stop: threading.Event, handed_back: list[int]
    ) -> None:
        """The end of a drain: give the lease up, say so in the store and stop."""
        assert self._drain is not None
        lease.release()
        self._drain = replace(
            self._drain, state=DRAINED, in_flight=0, handed_back=len(handed_back)
        )
        drain.write(store, self.node, self._drain)
        self.log.info(
            "runner_drained", leader=self._drain.leader, finished=self._drain.finished,
            handed_back=handed_back,
        )  # fmt: skip
        self.drained = True
        stop.set()

    def _pause(self, lease: Lease, stop: threading.Event, seconds: float) -> None:
        """Wait ``seconds`` (or until stopped), renewing the lease meanwhile."""
        end = time.monotonic() + seconds
        while not stop.is_set() and (left := end - time.monotonic()) > 0:
            self._heartbeat(lease)
            stop.wait(min(left, lease.seconds / 8))

    def _housekeep(self, store: Store) -> None:
        """Every HOUSEKEEPING_S: remove the stderr tails past the ladder's retention."""
        if time.monotonic() - self._housekept < HOUSEKEEPING_S:
            return
        self._housekept = time.monotonic()
        removed = tails.expire(store)
        if removed:
            self.log.info("stderr_tails_expired", matches=len(removed), days=tails.days(store))

    def _schedule(self, store: Store, capacity: int) -> None:
        """Queue rated matches up to ``capacity`` waiting, never so many that finished
        plus waiting would pass ``max_matches``."""
        rules = seasons.rules(store, self.settings.game_names(), self.settings.time_control)
        if rules != self._rules:
            self.log.info(
                "season_rules", season=rules.season, games=list(rules.games),
                time_control=rules.time_control,
            )  # fmt: skip
            self._rules = rules
        limit = self.settings.max_matches
        pending = store.matches.pending_rated()
        room = None if limit is None else limit - self.rated_finished - pending
        if room is None or room > 0:
            self._top_up(store, capacity, room)

    def _claim(
        self,
        store: Store,
        pool: executors.Executor,
        in_flight: dict[Future[Finished], Match],
        capacity: int,
    ) -> None:
        """Hand queued matches to the workers until ``capacity`` are in flight."""
        while len(in_flight) < capacity:
            match = store.matches.claim_next()
            if match is None:
                return
            try:
                job = self._job(store, match)
            except (StoreError, ArchiveError) as e:  # a bot this node cannot unpack
                state = store.matches.fail_match(match.id, f"{type(e).__name__}: {e}")
                self.log.error("match_failed", match=match.id, error=str(e), now=state)
                continue
            try:
                future = pool.submit(job)
            except BrokenProcessPool:
                # claimed but never handed to a worker: give it back, or it would stay
                # "running" until the next restart
                store.matches.fail_match(match.id, "a worker process died")
                raise
            except executors.ExecutorLost:  # claimed as the cluster went: the queue's again
                store.matches.hand_back([match])
                raise
            in_flight[future] = match

    def _collect(self, store: Store, in_flight: dict[Future[Finished], Match]) -> None:
        """Record the matches that finish within half a second."""
        done, _ = wait(in_flight, timeout=0.5, return_when=FIRST_COMPLETED)
        for future in done:
            match = in_flight.pop(future)
            started = time.perf_counter()
            try:
                self._record(store, match, future)
            except (BrokenProcessPool, executors.ExecutorLost):
                in_flight[future] = match  # failed or handed back with the others
                raise
            finally:
                self.store_seconds += time.perf_counter() - started

    def _recover(self, store: Store, in_flight: dict[Future[Finished], Match]) -> None:
        """A worker died and took the pool with it: fail (for a retry) every match it
        held, so none stays "running"."""
        self.log.error("worker_pool_broken", matches=[m.id for m in in_flight.values()])
        for match in in_flight.values():
            store.matches.fail_match(match.id, "a worker process died")

    def _top_up(self, store: Store, capacity: int, room: int | None) -> int:
        """Queue new rated matches until ``capacity`` are waiting; return how many."""
        created = 0
        while store.matches.queued_count() < capacity and (room is None or created < room):
            made = self._schedule_one(store)
            if not made:
                break
            created += made
        return created

    def _schedule_one(self, store: Store) -> int:
        """Queue one pairing (a whole duplicate round if enabled) in the next game whose
        turn it is, so every game the season plays is played side by side."""
        names = self._rules.games
        for turn in range(len(names)):
            game = names[(self._games_turn + turn) % len(names)]
            made = self._schedule_game(store, game)
            if made:
                self._games_turn = (self._games_turn + turn + 1) % len(names)
                return made
        return 0

    def _schedule_game(self, store: Store, game: str) -> int:
        info = engine.load(game).info
        busy = store.matches.scheduled_counts(game)
        rows = store.bots.ratings(game)
        # the online ratings matter only while a bot is provisional (it leads, and its
        # opponents are chosen by them): otherwise not read, so scheduling costs as before
        online = store.ratings.skills(game) if any(row[4] for row in rows) else None
        everyone = [
            scheduler.Candidate(
                bot_id, rating, games + busy.get(bot_id, 0), self._sparring and builtin,
                None if online is None else online.get(bot_id, skill.NEW),
            )
            for bot_id, rating, games, builtin, _ in rows
        ]
        candidates = scheduler.playable(everyone)
        if everyone and not candidates:
            # the normal state of a game nobody entered: news, not a warning
            self._note_waiting(game, "game_idle", "info", active=len(everyone), **sparring.IDLE)
            return 0
        players = scheduler.player_count(
            info.min_players, info.max_players, len(candidates), self.rng
        )
        if not players:
            self._note_waiting(
                game, "game_waiting", "warning", active=len(candidates),
                needed=sparring.needed(info.min_players), fix=sparring.FIX,
            )  # fmt: skip
            return 0
        self._waiting.pop(game, None)
        group = scheduler.pick_group(
            candidates, players, self.rng, leagues=self._league_draw(store, game, candidates)
        )
        seated = scheduler.assign_seats(
            [c.bot_id for c in group], store.matches.seat_counts(c.bot_id for c in group), self.rng
        )
        seed = self.rng.getrandbits(62)
        if not self.settings.duplicate:
            store.matches.queue_match(game, info.version, seated, seed)
            return 1
        group_id = store.matches.next_duplicate_group()
        for rotation in scheduler.rotations(seated):
            store.matches.queue_match(game, info.version, rotation, seed, duplicate_group=group_id)
        return len(seated)

    def _league_draw(
        self, store: Store, game: str, candidates: Sequence[scheduler.Candidate]
    ) -> scheduler.LeagueDraw | None:
        """``game``'s leagues as they stand at this scheduling turn, after promoting
        every bot whose fit passed its boss; None for a game without leagues."""
        setup = store.leagues.setup(game)
        if setup is None:
            return None
        # the leaderboard's fit (every active bot, the human row too): what the pages show
        shown = {b.id for b in store.bots.bots(game, [ACTIVE])}
        leagues.promote(store, setup, store.ratings.rated_fit(game, shown), self.log)
        ids = [c.bot_id for c in candidates]
        return scheduler.LeagueDraw(
            leagues.league_of(setup, store.leagues.ranks(game), ids), setup.share_above
        )

    def _note_waiting(self, game: str, event: str, level: str, **why: object) -> None:
        """Log once when ``game`` starts waiting for bots (and again only if why it
        waits changes, e.g. the count of active bots), never per poll."""
        key = f"{event} {sorted(why.items())}"
        if self._waiting.get(game) == key:
            return
        self._waiting[game] = key
        getattr(self.log, level)(event, game=game, **why)

    def _job(self, store: Store, match: Match) -> Job:
        bots, labels, archives = [], [], []
        for bot_id in match.seats:
            bot = store.bots.bot(bot_id)
            archive_hash = bot.archive_hash or ""
            archives.append("" if bot.source.startswith("builtin:") else archive_hash)
            bots.append(bot.source if bot.source.startswith("builtin:") else str(
                submission.unpacked(store, archive_hash)
            ))
            labels.append(bot.label)
        return Job(
            match_id=match.id,
            game=match.game,
            options=match.options,
            seed=match.seed,
            bots=tuple(bots),
            bot_ids=match.seats,
            labels=tuple(labels),
            replay_path=str(store.files.attempt_replay_path(match.id, match.attempts)),
            log_dir=str(store.files.log_dir(match.id)),
            time_control=self._rules.time_control,
            # A validation opponent runs sandboxed like a submitted opponent would, so a
            # bot cannot tell its validation match from a rated one by how fast it answers.
            builtins_in_process=self.settings.builtins_in_process and match.kind != VALIDATION,
            archives=tuple(archives),
            **self._fork_of(store, match),
        )

    @staticmethod
    def _fork_of(store: Store, match: Match) -> dict[str, Any]:
        """A forked match's origin for its job: the recorded replay and the step."""
        fork = store.forks.fork(match.id) if match.kind == FORKED else None
        if fork is None:
            return {}
        origin = store.matches.match(fork.origin_id)
        return {"fork_replay": forks.recorded_replay(store, origin), "fork_at": fork.step}

    def _record(self, store: Store, match: Match, future: Future[Finished]) -> None:
        log = self.log.bind(match=match.id, game=match.game)
        try:
            finished = future.result()
        except (BrokenProcessPool, LimitsUnavailable, executors.ExecutorLost):
            raise
        except Exception as e:  # the referee could not run it: not any bot's fault
            metrics.MATCH_ERRORS.labels(match.game).inc()
            error = f"{type(e).__name__}: {e}"
            if match.kind == VALIDATION:
                store.matches.fail_match(match.id, error, retries=0)
                submission.judge(store, match.seats, [], error)
                log.warning("validation_failed", error=error)
            else:
                state = store.matches.fail_match(match.id, error)
                log.error("match_failed", error=error, now=state)
            return
        played = store.files.attempt_replay_path(match.id, match.attempts)
        replay = played.read_bytes()  # kept for every node to read
        if not store.matches.finish_match(match.id, finished, replay, match.attempts):
            played.unlink(missing_ok=True)  # a dropped attempt's: never to be served
            log.warning("result_ignored", reason="the match was no longer running this attempt")
            return
        # Only now the recorded replay: a file at replay_path always has the recorded hash.
        os.replace(played, store.files.replay_path(match.id))
        metrics.count_recorded(match.game, match.kind, finished)
        if match.kind == VALIDATION:
            submission.judge(
                store, match.seats,
                [(r.status, f"{r.reason}: {r.detail}" if r.detail else r.reason)
                 for r in finished.results],
            )  # fmt: skip
        elif match.kind != FORKED:  # a fork is unrated: no count, no suspension
            self.rated_finished += 1
            suspension.check(store, match.seats)
        log.info(
            "match_recorded",
            kind=match.kind,
            places=[r.place for r in finished.results],
            bots=list(match.seats),
        )
        if self.on_finished is not None:
            self.on_finished(store.matches.match(match.id))
