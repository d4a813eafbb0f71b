"""Run one match: the referee's programmatic API (the ladder calls this).

Stable names::

    BotSpec.parse("builtin:random") / BotSpec.parse("path/to/bot-dir")
    TimeControl.parse("1s+30s")            # per-decision time + bank
    MatchSpec(game, bots, options={}, seed=0, time_control=..., sandbox=True,
              replay_path=None, log_dir=None, in_process=False, max_failures=3,
              startup_timeout_s=10.0, limits=BotLimits(), match_id="", on_step=None,
              ponder=False, require_limits=False)
    outcome = await run_match(spec)        # inside trio
    outcome = play_match(spec)             # sync: trio.run(run_match, spec)
    outcome.result                         # engine.Result; places put out seats last
    outcome.game_result                    # engine.Result as the game scored it
    outcome.seats                          # [SeatOutcome(seat, status "ok"|"out", reason, ...)]
    outcome.decisions, outcome.wall_s, outcome.cpu_s, outcome.replay_path, outcome.match_id

A match runs in one trio nursery: every bot is started (concurrently) and reaped
inside it, every ``Act`` runs under its own cancel scope, and chance is sampled from a
stream derived from the seed (a match of built-in bots in process never waits, and
``play_match`` runs it without trio). Failures are classified once (:mod:`niwa.referee.failures`);
a failed decision gets a seeded default move, and a crash, a lost connection or
``max_failures`` failures put the seat out: it places last and the match goes on.
"""

from __future__ import annotations

import functools
import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

import structlog
import trio

from niwa import engine
from niwa.bots import builtin
from niwa.bots.manifest import Manifest, name_problem
from niwa.bots.manifest import load as load_manifest
from niwa.bots.sdk import NOTE_LIMIT, Finish, GameStart, Reply, Thinking, cut_debug
from niwa.engine import CHANCE, Action, Game, Result, State, canonical_json
from niwa.errors import RefereeError
from niwa.referee import cgroups, sandbox, stderr_tail, uids
from niwa.referee.cgroups import LimitsUnavailable
from niwa.referee.clock import (
    GRACE_S,
    HUMAN_TIME_MS,
    WALL_FACTOR,
    Clock,
    TimeControl,
    wall_cap_s,
)
from niwa.referee.failures import FATAL, BotFailure, Failure, MoveStatus, SeatStatus, clip
from niwa.referee.fork import ForkStart, RecordedChance
from niwa.referee.human import HUMAN_VERSION, Desk, HumanPlayer
from niwa.referee.players import InProcessPlayer, Player, Question, make_question
from niwa.referee.process_player import ProcessPlayer
from niwa.referee.replay import (
    MAX_STEPS,
    Header,
    Isolation,
    Move,
    MoveThinking,
    ReplayWriter,
    ResultLine,
    SeatInfo,
    SeatOutcome,
    Step,
    apply_step,
    chain_next,
    chain_start,
    chance_chain_next,
    chance_line,
    encoded_actions,
    is_checkpoint,
    step_text,
)
from niwa.referee.sandbox import BotLimits
from niwa.referee.seeds import bot_seed, stream
from niwa.referee.thinking import dropped_debug
from niwa.referee.thinking import record as thinking_record
from niwa.referee.watchdog import CpuWatchdog

__all__ = [
    "BotLimits",
    "BotSpec",
    "LimitsUnavailable",
    "MatchOutcome",
    "MatchSpec",
    "SeatOutcome",
    "TimeControl",
    "play_match",
    "run_match",
]

#: ``BotSpec.parse("human")`` (or ``"human:NAME"``): a seat a person plays.
HUMAN = "human"
#: Time allowed for ``Finish`` at the end of a match.
FINISH_TIMEOUT_S = 1.0

StepObserver = Callable[[Step, State, State], None]
ClockKind = Literal["cpu", "wall"]


class EndlessMatch(RefereeError):
    """The game did not end within the match's step limit: the rules let the seats go
    on for ever (Bonsai's players may both Cultivate and place nothing, so the deck
    never runs out). The match has no result; the bots are stopped as at any end."""


@dataclass(frozen=True)
class BotSpec:
    """A seat's bot: ``builtin:NAME`` or a bot directory holding a ``bot.toml``."""

    kind: str  # "builtin", "dir" or "human" (a person, through MatchSpec.humans)
    target: str  # the built-in name, the directory's absolute path, or the person's name
    #: How the replay names the seat instead of ``str(self)`` (the ladder: a submitted
    #: bot's ``name@version``, never its storage folder); "" to use ``str(self)``.
    label: str = ""

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """Raises ValueError (one line, naming the fix) for an unknown bot."""
        if text == HUMAN or text.startswith(f"{HUMAN}:"):
            person = text.partition(":")[2] or HUMAN
            problem = name_problem(person)
            if problem:
                raise ValueError(f"{text!r}: a person's {problem}")
            return cls(HUMAN, person)
        if text.startswith("builtin:"):
            name = text.removeprefix("builtin:")  # may carry options: mcts?seconds=0.1
            try:
                builtin.create(name)
            except (builtin.UnknownBuiltin, ValueError) as e:
                raise ValueError(str(e).strip("\"'")) from None
            return cls("builtin", name)
        path = Path(text).expanduser().resolve()
        load_manifest(path)  # fail early with the manifest's own message
        return cls("dir", str(path))

    @property
    def is_builtin(self) -> bool:
        return self.kind == "builtin"

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    def manifest(self) -> Manifest:
        """The bot's identity; built-in bots get one from their class, a person from
        their name."""
        if self.is_human:
            return Manifest(name=self.target, version=HUMAN_VERSION, games=("*",), command=())
        if self.is_builtin:
            return _builtin_manifest(self.target)
        return load_manifest(self.target)

    def __str__(self) -> str:
        if self.is_human:
            return HUMAN if self.target == HUMAN else f"{HUMAN}:{self.target}"
        return f"builtin:{self.target}" if self.is_builtin else self.target


@functools.cache
def _builtin_manifest(target: str) -> Manifest:
    """A built-in bot's identity, from its class (made once: a match asks for it per
    seat, twice)."""
    cls = type(builtin.create(target))
    return Manifest(
        name=target,
        version=str(getattr(cls, "version", "1")),
        games=("*",),
        command=("python", "-m", "niwa.bots.builtin", target),
    )


@dataclass(frozen=True)
class MatchSpec:
    """Everything one match needs. ``game`` is a registered name (or, in tests, a
    :class:`engine.Game`); one bot per seat, seat order as given."""

    game: str | Game
    bots: Sequence[BotSpec]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    time_control: TimeControl = field(default_factory=lambda: TimeControl(1000, 30_000))
    sandbox: bool = True
    replay_path: Path | None = None
    log_dir: Path | None = None
    in_process: bool = False  # run built-in bots inside the referee (no process, no gRPC)
    max_failures: int = 3  # failed decisions (of any kind) that put a seat out
    startup_timeout_s: float = 10.0
    limits: BotLimits = field(default_factory=BotLimits)
    match_id: str = ""
    on_step: StepObserver | None = None  # called after each step (narration, progress)
    ponder: bool = False  # True: bots keep running between their turns (never frozen)
    #: True: refuse the match (LimitsUnavailable) rather than start a sandboxed bot
    #: whose cgroup limits cannot all be enforced; the ladder sets it.
    require_limits: bool = False
    #: False: the replay's result line leaves out every seat's stderr tail (the
    #: MatchOutcome keeps it); the ladder's replays are public, a bot's stderr is not.
    replay_stderr: bool = True
    #: Play on from a recorded match's step N (``niwa replay fork``): its steps before
    #: N are played again as recorded (bots not asked), its chance after N reused
    #: where legal (:mod:`niwa.referee.fork`); the header records the origin.
    fork: ForkStart | None = None
    #: The desk of each seat a person plays (its bot is ``BotSpec.parse("human")``).
    humans: Mapping[int, Desk] = field(default_factory=dict)
    #: The clock of a person's seat (the bots keep ``time_control``).
    human_time: TimeControl = field(default_factory=lambda: TimeControl(*HUMAN_TIME_MS))
    #: Steps (chance included) after which a game that has not ended is stopped with
    #: EndlessMatch: by default the most a replay holds, so every replay written reads.
    max_steps: int = MAX_STEPS

    @property
    def players(self) -> int:
        return len(self.bots)

    @classmethod
    def from_job(
        cls,
        game: str,
        bots: Sequence[str | BotSpec],
        options: Mapping[str, Any],
        seed: int,
        time_control: str,
    ) -> MatchSpec:
        """A match from the plain values a worker process receives (a bot as its
        ``BotSpec`` text, the time control as ``"1s+30s"``); the other settings keep
        their defaults (set them with :func:`dataclasses.replace`)."""
        return cls(
            game=game,
            bots=[b if isinstance(b, BotSpec) else BotSpec.parse(b) for b in bots],
            options=options,
            seed=seed,
            time_control=TimeControl.parse(time_control),
        )


@dataclass(frozen=True)
class MatchOutcome:
    result: Result  # the game's scores; places with out seats last
    game_result: Result  # the game's own result, ignoring who went out
    seats: list[SeatOutcome]
    decisions: int  # steps where a seat decided (chance excluded)
    wall_s: float
    replay_path: Path | None
    match_id: str
    clock: ClockKind = "wall"  # "cpu": decisions were charged CPU time; "wall": wall time
    #: CPU time of the referee's thread over ``wall_s`` (with in-process bots, their
    #: time too): what ``niwa bench referee`` charges the referee, engine included.
    cpu_s: float = 0.0
    #: Wall time of the steps alone: from every seat started to the game's end.
    steps_s: float = 0.0
    #: Per seat, the end of what its bot wrote on stderr (at most
    #: stderr_tail.REPLAY_TAIL_BYTES), seats that stayed in too: for the bot's owner
    #: (the ladder keeps it privately); the replay has only the out seats' tails.
    stderr_tails: list[list[str]] = field(default_factory=list)


def load_game(game: str | Game) -> Game:
    return engine.load(game) if isinstance(game, str) else game


def final_places(game_places: Sequence[int], seats: Sequence[SeatOutcome]) -> list[int]:
    """Seats still in keep the game's order; seats that went out place below them,
    a seat that went out later above one that went out earlier."""
    keys = [
        (1, -place, 0) if s.status == SeatStatus.OK else (0, 0, -1 if s.at is None else s.at)
        for place, s in zip(game_places, seats, strict=True)
    ]
    return list(engine.places_from_keys(keys))


class _Seat:
    """The referee's book-keeping for one seat."""

    def __init__(
        self, index: int, spec: BotSpec, player: Player, match: MatchSpec, match_id: str
    ) -> None:
        self.index = index
        self.spec = spec
        self.player = player
        self.clock = Clock(match.human_time if spec.is_human else match.time_control)
        self._defaults: random.Random | None = None  # made on first use: few seats fail
        self._match_seed = match.seed
        self.seed = bot_seed(match.seed, index)  # the bot's own, sent in Start and Act
        self.failures = 0
        self.outcome = SeatOutcome(index)
        self.watchdog: CpuWatchdog | None = None  # on the CPU clock only
        self._match_id = match_id

    @functools.cached_property
    def log(self) -> Any:
        """The seat's logger, bound when first needed: most matches log nothing per
        seat (a logger bound per seat and match cost 3 µs each)."""
        return structlog.get_logger("niwa.referee").bind(
            match=self._match_id, seat=self.index, bot=str(self.spec)
        )

    @property
    def out(self) -> bool:
        return self.outcome.status == SeatStatus.OUT

    @property
    def defaults(self) -> random.Random:
        """The seat's stream of default moves (the same whenever it is first used)."""
        if self._defaults is None:
            self._defaults = stream(self._match_seed, "default", self.index)
        return self._defaults


def resolve_reply(reply: Reply, legal: list[Action]) -> Action:
    """The legal action a reply names; ILLEGAL if it names none."""
    if not reply.has_action:
        assert reply.index is not None
        if not 0 <= reply.index < len(legal):
            raise BotFailure(
                Failure.ILLEGAL, f"index {reply.index} out of range ({len(legal)} legal actions)"
            )
        return legal[reply.index]
    wanted = canonical_json(reply.action)
    for action in legal:
        if canonical_json(action) == wanted:
            return action
    raise BotFailure(Failure.ILLEGAL, f"action {wanted[:200]} is not legal here")


class _Match:
    def __init__(self, spec: MatchSpec, game: Game, options: dict[str, Any]) -> None:
        self.spec = spec
        self.game = game
        self.options = options
        self.match_id = spec.match_id or uuid.uuid4().hex[:12]
        self.chance = stream(spec.seed, "chance")
        self.forked = (
            None if spec.fork is None else RecordedChance(spec.fork.recorded, self.chance)
        )
        self.seats: list[_Seat] = []
        self.clock: ClockKind = "wall"  # what decisions are charged; set once seats start
        #: :attr:`all_in_process`, fixed when the steps begin (the seats' players never
        #: change after that): asked once per match rather than per decision.
        self.local = False
        self.log = structlog.get_logger("niwa.referee").bind(match=self.match_id)

    async def put_out(self, seat: _Seat, kind: Failure, at: int | None, detail: str) -> None:
        """Stop the seat's bot and record why; ``at`` is the step, None at start-up."""
        await seat.player.close()  # reap first, so the stderr tail is complete
        seat.outcome = SeatOutcome(
            seat.index,
            status=SeatStatus.OUT,
            reason=str(kind),
            at=at,
            detail=detail,
            stderr_tail=stderr_tail.for_replay(seat.player.stderr_tail()),
            failures=seat.failures,
        )
        seat.log.warning("seat_out", reason=str(kind), at=at, detail=detail)

    async def start_seat(self, seat: _Seat, header: Header) -> None:
        limit = self.spec.startup_timeout_s
        start = game_start(header, seat.index)
        try:
            if isinstance(seat.player, InProcessPlayer):
                # It runs in this thread and cannot be interrupted: no scope (as in
                # call_act), which would cost time and do nothing.
                await seat.player.start(start, limit)
            else:
                # The player enforces READY and Start limits itself; this is a safety net.
                with trio.fail_after(2 * limit + 1):
                    await seat.player.start(start, limit)
        except trio.TooSlowError:
            seat.failures += 1
            await self.put_out(seat, Failure.TIMEOUT, None, "start-up took too long")
        except BotFailure as f:
            seat.failures += 1
            await self.put_out(seat, f.kind, None, f.detail)
        else:
            self.log.info(  # the seat's context spelled out: its own logger is lazy
                "seat_started", seat=seat.index, bot=str(seat.spec), name=seat.player.name,
                version=seat.player.version,
            )

    async def ask(self, seat: _Seat, index: int, state: State, moves: dict[int, Move]) -> None:
        if seat.out:
            legal = state.legal_actions(seat.index)
            moves[seat.index] = Move(seat.index, seat.defaults.choice(legal), status=MoveStatus.OUT)
            return
        time_left = seat.clock.time_left_ms()
        question = make_question(
            index, seat.index, state, int(time_left), seat.clock.control.per_decision_ms,
            seat.seed,
        )
        legal = question.legal_actions
        player = seat.player
        cpu0 = player.cpu_seconds()
        t0 = time.perf_counter()
        if self.local:  # call_act's in-process case, without a coroutine of its own
            failure: BotFailure | None = None
            try:
                reply: Reply | None = await player.act(
                    question, wall_cap_s(time_left, self.clock == "cpu")
                )
            except BotFailure as f:
                reply, failure = None, f
        else:
            reply, failure = await self.call_act(seat, question, time_left, cpu0)
            # The state moves on: an observation not built now never will be (an
            # in-process player's act seals its question itself, answer or not).
            question.seal()
        wall_ms = (time.perf_counter() - t0) * 1000
        cpu_ms = _cpu_ms(cpu0, player.cpu_seconds())
        used_ms = cpu_ms if self.clock == "cpu" and cpu_ms is not None else wall_ms
        action: Action = None
        note = debug = ""
        thinking: MoveThinking | None = None
        if (failure is None and reply is None) or (
            failure is not None and failure.kind == Failure.TIMEOUT
        ):  # stopped for time, here or at the gRPC deadline: say so with our numbers
            failure = BotFailure(
                Failure.TIMEOUT, self.timeout_detail(time_left, wall_ms, cpu_ms)
            )
        if failure is None and reply is not None:
            if not seat.clock.charge(used_ms):
                failure = BotFailure(
                    Failure.TIMEOUT, self.over_detail(time_left, wall_ms, cpu_ms)
                )
            else:
                try:
                    action = resolve_reply(reply, legal)
                    if reply.note:
                        note = clip(reply.note, NOTE_LIMIT)
                    if reply.debug:  # in-process bots bypass the transport's cut
                        debug = cut_debug(reply.debug)
                    if reply.thinking is not None:
                        thinking, debug = self.thinking(seat, index, reply.thinking,
                                                        len(legal), debug)
                except BotFailure as f:
                    failure = f
                except Exception as e:  # the bot's answer broke something: its failure
                    seat.log.warning("answer_raised", step=index, error=repr(e)[:200])
                    failure = BotFailure(
                        Failure.ILLEGAL, f"the answer could not be used ({type(e).__name__})"
                    )
        elif failure is not None and failure.kind != Failure.TIMEOUT:
            seat.clock.charge(used_ms)  # a failed call still spent its time
        if failure is None:
            moves[seat.index] = Move.answered(
                seat.index, action, wall_ms, cpu_ms, int(time_left), note, debug, thinking
            )
            return
        if failure.kind == Failure.TIMEOUT:
            seat.clock.expire()
        seat.failures += 1
        default = seat.defaults.choice(legal)
        moves[seat.index] = Move(
            seat.index, default, str(failure.kind), wall_ms, cpu_ms, int(time_left), "",
            failure.detail,
        )
        seat.log.warning(
            "decision_failed", step=index, failure=str(failure.kind), detail=failure.detail
        )
        if failure.kind in FATAL or seat.failures >= self.spec.max_failures:
            await self.put_out(seat, failure.kind, index, failure.detail)

    def thinking(
        self, seat: _Seat, step: int, sent: Thinking, legal: int, debug: str
    ) -> tuple[MoveThinking | None, str]:
        """A reply's thinking as the move keeps it, and the move's debug text: with a
        line saying why when the thinking is dropped (:mod:`niwa.referee.thinking`)."""
        try:
            kept = thinking_record(sent, legal, self.spec.players)
        except Exception as e:  # an in-process bot's odd objects: still not its failure
            kept = f"it could not be read ({type(e).__name__})"
        if not isinstance(kept, str):
            return kept, debug
        seat.log.warning("thinking_dropped", step=step, problem=kept)
        return None, dropped_debug(debug, kept)

    def timeout_detail(self, time_left_ms: float, wall_ms: float, cpu_ms: float | None) -> str:
        """Why a call was stopped before it answered, with the numbers: the limit it
        passed and what it used of both clocks."""
        used = "CPU not measured" if cpu_ms is None else f"used {cpu_ms:.0f} ms of CPU"
        if self.clock == "cpu" and cpu_ms is not None:
            if cpu_ms > time_left_ms:  # the CPU watchdog stopped it
                return (
                    f"no answer within {time_left_ms:.0f} ms of CPU time "
                    f"({used} in {wall_ms:.0f} ms of wall time)"
                )
            cap_ms = wall_cap_s(time_left_ms, True) * 1000
            return (
                f"no answer within the wall-time cap of {cap_ms:.0f} ms "
                f"({WALL_FACTOR} x {time_left_ms:.0f} ms left + {GRACE_S * 1000:.0f} ms; "
                f"{used})"
            )
        return f"no answer within {time_left_ms:.0f} ms (wall clock; {used})"

    def over_detail(self, time_left_ms: float, wall_ms: float, cpu_ms: float | None) -> str:
        """A call that answered after using more than its time left."""
        if self.clock == "cpu" and cpu_ms is not None:
            return (
                f"answered after {cpu_ms:.0f} ms of CPU with {time_left_ms:.0f} ms left "
                f"({wall_ms:.0f} ms of wall time)"
            )
        return f"answered after {wall_ms:.0f} ms with {time_left_ms:.0f} ms left (wall clock)"

    async def call_act(
        self, seat: _Seat, question: Question, time_left_ms: float, cpu0: float | None
    ) -> tuple[Reply | None, BotFailure | None]:
        """Ask one seat; (None, None) when the call was stopped for time: its wall-time
        cap passed or, on the CPU clock, the watchdog saw its CPU time run out."""
        cpu = self.clock == "cpu" and cpu0 is not None
        cap_s = wall_cap_s(time_left_ms, cpu)
        reply: Reply | None = None
        failure: BotFailure | None = None
        if isinstance(seat.player, InProcessPlayer):
            # It runs in this thread and cannot be interrupted (the clock classifies a
            # slow answer afterwards): a cancel scope would cost time and do nothing.
            try:
                reply = await seat.player.act(question, cap_s)
            except BotFailure as f:
                failure = f
            return reply, failure
        watchdog = seat.watchdog if cpu else None
        with trio.move_on_after(cap_s + GRACE_S) as call:  # a safety net: the deadline is cap_s
            if watchdog is not None and cpu0 is not None:
                watchdog.arm(cpu0, time_left_ms / 1000, call)
            try:
                reply = await seat.player.act(question, cap_s)
            except BotFailure as f:
                failure = f
            finally:
                if watchdog is not None:
                    watchdog.disarm()
        return reply, failure

    async def decide(self, index: int, state: State, to_move: tuple[int, ...]) -> list[Move]:
        moves: dict[int, Move] = {}
        if len(to_move) == 1:
            await self.ask(self.seats[to_move[0]], index, state, moves)
        elif self.local or all(isinstance(self.seats[s].player, InProcessPlayer)
                               for s in to_move):
            for s in to_move:  # they never wait: asking them at once would gain nothing
                await self.ask(self.seats[s], index, state, moves)
        else:  # simultaneous: every seat is asked at once, each under its own deadline
            async with trio.open_nursery() as nursery:
                for s in to_move:
                    nursery.start_soon(self.ask, self.seats[s], index, state, moves)
        return [moves[s] for s in to_move]

    async def play(self, writer: ReplayWriter | None) -> MatchOutcome:
        spec = self.spec
        started = time.perf_counter()
        cpu_started = time.thread_time()
        state = self.game.new_game(spec.players, self.options)
        self.log.info(
            "match_started",
            game=self.game.info.version,
            seed=spec.seed,
            bots=[str(s.spec) for s in self.seats],
            time_control=str(spec.time_control),
            sandbox=spec.sandbox,
        )
        starting = self.header()  # what Start is built from: none of it changes below
        await self.each_seat(lambda seat: self.start_seat(seat, starting))
        # One clock for every seat: CPU time only if every bot still in has a cgroup.
        started_seats = [s for s in self.seats if not s.out]
        if started_seats and all(s.player.charges_cpu for s in started_seats):
            self.clock = "cpu"
        steps_started = time.perf_counter()
        self.local = self.all_in_process
        # In process, nothing waited since ``starting`` was made (its time is now's).
        header = starting if self.local and self.clock == starting.clock else self.header()
        if writer is not None:
            writer.header(header)
        chain = chain_start(header)
        index = decisions = 0
        if spec.fork is not None:
            chain, index, decisions = self.play_prefix(spec.fork, state, writer, chain)
        over = state.is_over()
        async with AsyncExitStack() as stack:  # tasks that live as long as the steps
            if not self.all_in_process or self.clock == "cpu":  # else none: no nursery
                beside = await stack.enter_async_context(trio.open_nursery())
                stack.callback(beside.cancel_scope.cancel)  # runs before the nursery ends
                if writer is not None and not self.all_in_process:
                    beside.start_soon(flush_while_waiting, writer)
                if self.clock == "cpu":
                    for seat in self.seats:
                        seat.watchdog = CpuWatchdog(seat.player)
                        beside.start_soon(seat.watchdog.run)
            while not over:
                if index >= spec.max_steps:
                    self.log.warning("match_endless", steps=index, decisions=decisions)
                    raise EndlessMatch(
                        f"the game did not end within {spec.max_steps:,} steps ({decisions:,}"
                        " decisions): its rules let the bots go on for ever, and they did; the"
                        " match has no result"
                    )
                before = state.clone() if spec.on_step is not None else state
                to_move = state.to_move()
                # Tamper evidence per step is the chain over what was played; the full
                # state is hashed at checkpoints and at the end (it costs 60-300 µs).
                if to_move == (CHANCE,):  # spelled directly: most steps of some games
                    if self.forked is None:
                        action = engine.sample_chance(state, self.chance)
                    else:
                        action = self.forked(state)
                    state.apply({CHANCE: action})
                    over = state.is_over()
                    encoded = canonical_json(action)
                    chain = chance_chain_next(chain, index, encoded)
                    digest = engine.state_hash(state) if is_checkpoint(index, over) else ""
                    if writer is not None:
                        writer.step_line(chance_line(index, encoded, chain, digest))
                    if spec.on_step is not None:
                        step = Step(index, "chance", [Move(CHANCE, action)], digest, chain)
                        spec.on_step(step, before, state)
                    index += 1
                    continue
                moves = await self.decide(index, state, to_move)
                decisions += 1
                state.apply({m.seat: m.action for m in moves})
                over = state.is_over()
                actions = encoded_actions(moves)  # once, for the chain and the line
                chain = chain_next(chain, "decision", index, moves, actions)
                digest = engine.state_hash(state) if is_checkpoint(index, over) else ""
                if writer is not None:
                    writer.step_line(step_text(index, "decision", moves, actions, chain, digest))
                if spec.on_step is not None:
                    spec.on_step(Step(index, "decision", moves, digest, chain), before, state)
                index += 1
        steps_s = time.perf_counter() - steps_started
        game_result = state.result()
        outcomes = [s.outcome for s in self.seats]
        places = final_places(game_result.places, outcomes)
        result = Result(game_result.scores, tuple(places))
        await self.finish_all(result)
        await self.each_seat(self.stop)  # every bot stopped: its stderr tail is whole
        tails = [stderr_tail.for_replay(s.player.stderr_tail()) for s in self.seats]
        wall_s = time.perf_counter() - started
        cpu_s = time.thread_time() - cpu_started
        if writer is not None:
            writer.result(
                ResultLine(
                    scores=list(result.scores),
                    places=places,
                    game_places=list(game_result.places),
                    seats=outcomes if spec.replay_stderr
                    else [replace(o, stderr_tail=[]) for o in outcomes],
                    decisions=decisions,
                    wall_ms=wall_s * 1000,
                )
            )
        self.log.info("match_over", places=places, decisions=decisions, wall_s=wall_s)
        return MatchOutcome(
            result,
            game_result,
            outcomes,
            decisions,
            wall_s,
            spec.replay_path,
            self.match_id,
            self.clock,
            cpu_s,
            steps_s,
            tails,
        )

    def play_prefix(
        self, fork: ForkStart, state: State, writer: ReplayWriter | None, chain: str
    ) -> tuple[str, int, int]:
        """A fork's recorded steps, applied and written as recorded (the chain and the
        checkpoint hashes again, under this match's header): the chain, the next
        step's index and the decisions so far."""
        decisions = 0
        for step in fork.prefix:
            before = state.clone() if self.spec.on_step is not None else state
            apply_step(step, state)
            actions = encoded_actions(step.moves)
            chain = chain_next(chain, step.kind, step.index, step.moves, actions)
            digest = engine.state_hash(state) if is_checkpoint(step.index, False) else ""
            again = Step(step.index, step.kind, step.moves, digest, chain)
            if writer is not None:
                writer.step_line(again.line(actions))
            if self.spec.on_step is not None:
                self.spec.on_step(again, before, state)
            decisions += step.kind == "decision"
        return chain, len(fork.prefix), decisions

    @staticmethod
    async def stop(seat: _Seat) -> None:
        await seat.player.close()

    async def finish_all(self, result: Result) -> None:
        async def finish(seat: _Seat) -> None:
            if seat.out:
                return
            end = Finish(list(result.scores), list(result.places), seat.index)
            try:
                if isinstance(seat.player, InProcessPlayer):  # no scope, as in start_seat
                    await seat.player.finish(end, FINISH_TIMEOUT_S)
                else:
                    with trio.move_on_after(FINISH_TIMEOUT_S + GRACE_S):
                        await seat.player.finish(end, FINISH_TIMEOUT_S)
            except BotFailure as f:
                seat.log.info("finish_failed", detail=f.detail)

        await self.each_seat(finish)

    @property
    def all_in_process(self) -> bool:
        """Every seat's bot runs in this thread: none ever waits, nothing runs beside."""
        return all(isinstance(s.player, InProcessPlayer) for s in self.seats)

    async def each_seat(self, fn: Callable[[_Seat], Awaitable[None]]) -> None:
        """``fn`` for every seat: at once, or one by one when no bot can make the others
        wait (in-process bots never yield: a nursery would only cost time)."""
        if self.all_in_process:
            for s in self.seats:
                await fn(s)
            return
        async with trio.open_nursery() as nursery:
            for s in self.seats:
                nursery.start_soon(fn, s)

    def isolation(self, bot: BotSpec) -> Isolation:
        """How the seat's bot runs: a built-in run in process is niwa's own code,
        inside the referee; every other bot is a process, sandboxed or not."""
        if bot.is_human:
            return "human"
        if bot.is_builtin and self.spec.in_process:
            return "in-process"
        return "sandbox" if self.spec.sandbox else "none"

    def header(self) -> Header:
        return Header(
            game=self.game.info.name,
            version=self.game.info.version,
            players=self.spec.players,
            options=self.options,
            seats=[
                SeatInfo(
                    s.index, s.spec.label or str(s.spec), s.player.name, s.player.version,
                    isolation=self.isolation(s.spec),
                    time_control=self.spec.human_time.to_json() if s.spec.is_human else None,
                )
                for s in self.seats
            ],
            seed=self.spec.seed,
            time_control=self.spec.time_control.to_json(),
            match_id=self.match_id,
            started=datetime.now(UTC).isoformat(timespec="seconds"),
            # Old readers' question, "did the bots run sandboxed?": yes when every bot
            # run as a process was, and one was (built-ins in process are niwa's code).
            sandbox=any(self.isolation(s.spec) == "sandbox" for s in self.seats),
            clock=self.clock,
            max_failures=self.spec.max_failures,
            fork=None if self.spec.fork is None else self.spec.fork.origin,
        )


def game_start(header: Header, seat: int) -> GameStart:
    """The ``Start`` a seat's bot gets, from the replay header's values only, so
    ``niwa replay ask`` (which has nothing else) sends the same one again."""
    return GameStart(
        game=header.game,
        version=header.version,
        seat=seat,
        players=header.players,
        options=header.options,
        per_decision_ms=header.time_control["per_decision_ms"],
        bank_ms=header.time_control["bank_ms"],
        seed=bot_seed(header.seed, seat),
        match_id=header.match_id,
    )


async def flush_while_waiting(writer: ReplayWriter) -> None:
    """Write the replay's pending steps every interval while the referee waits for
    bots, so a long think does not hold written steps back (in-process bots never let
    this run: the writer flushes by the clock as it writes)."""
    while True:
        await trio.sleep(writer.flush_interval_s)
        writer.flush()


def _cpu_ms(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return max(0.0, after - before) * 1000


def check_bots_play(game: str, bots: Sequence[BotSpec]) -> None:
    """Raise ValueError (one line) if a bot's ``bot.toml`` does not list ``game``."""
    for bot in bots:
        manifest = bot.manifest()
        if not manifest.plays(game):
            raise ValueError(
                f"bot {manifest.name} ({bot}) does not play {game}: "
                f"its bot.toml lists {', '.join(manifest.games)}"
            )


def check_sandbox(bot_dirs: Sequence[BotSpec]) -> None:
    """Fail before any process starts if sandboxed bots cannot run here."""
    sandbox.bwrap()
    if os.geteuid() != 0:
        return
    first, last = uids.uid_range()
    for bot in bot_dirs:  # as root, bots run as an unprivileged uid: it must read them
        mode = Path(bot.target).stat().st_mode
        if mode & 0o005 != 0o005:
            raise ValueError(
                f"{bot.target} is not readable by other users, and sandboxed bots run "
                f"as unprivileged uids ({first}-{last}): chmod -R o+rX {bot.target}"
            )


def make_player(
    spec: MatchSpec, bot: BotSpec, seat: int, match_id: str, nursery: trio.Nursery | None
) -> Player:
    """The seat's player; a bot process lives in ``nursery`` (None only when the match
    :func:`never_waits`)."""
    manifest = bot.manifest()
    if bot.is_human:
        if seat not in spec.humans:
            raise ValueError(f"seat {seat} is a human seat but the match has no desk for it")
        return HumanPlayer(spec.humans[seat], load_game(spec.game), manifest.name)
    if bot.is_builtin and spec.in_process:
        return InProcessPlayer(builtin.create(bot.target), manifest.name, manifest.version)
    assert nursery is not None, "a bot process needs a nursery"
    return ProcessPlayer(
        manifest=manifest,
        bot_dir=None if bot.is_builtin else Path(bot.target),
        seat=seat,
        match_id=match_id,
        sandbox=spec.sandbox,
        limits=spec.limits,
        startup_timeout_s=spec.startup_timeout_s,
        log_dir=spec.log_dir,
        nursery=nursery,
        freeze_idle=not spec.ponder,
        require_limits=spec.require_limits,
    )


async def run_match(spec: MatchSpec) -> MatchOutcome:
    """Play one match to the end and return its outcome (see the module docstring)."""
    game = load_game(spec.game)
    options = game.info.validate(spec.players, spec.options)
    check_bots_play(game.info.name, spec.bots)
    if spec.sandbox and not all(b.is_builtin and spec.in_process for b in spec.bots):
        check_sandbox([b for b in spec.bots if b.kind == "dir"])
        if spec.require_limits:  # refuse before any bot starts, not half-way
            cgroups.check_required(spec.limits)
    match = _Match(spec, game, options)
    try:
        async with AsyncExitStack() as stack:
            nursery = None  # no bot process to run beside the match: no nursery
            if not never_waits(spec):
                nursery = await stack.enter_async_context(trio.open_nursery())
            for i, bot in enumerate(spec.bots):
                player = make_player(spec, bot, i, match.match_id, nursery)
                stack.push_async_callback(player.close)
                match.seats.append(_Seat(i, bot, player, spec, match.match_id))
            writer = ReplayWriter(spec.replay_path) if spec.replay_path is not None else None
            try:
                return await match.play(writer)
            finally:
                if writer is not None:
                    writer.close()
    except BaseExceptionGroup as group:
        # A bot's group failed after the up-front check: the refusal, not a group of it.
        refused = group.subgroup(LimitsUnavailable)
        if refused is not None:
            raise _first(refused) from None
        endless = group.subgroup(EndlessMatch)  # the game's, raised inside the nurseries
        if endless is not None:
            raise _first(endless) from None
        raise
    raise AssertionError("unreachable")  # pragma: no cover  (mypy: the stack may swallow)


def _first(group: BaseExceptionGroup[Any]) -> BaseException:
    leaf = group.exceptions[0]
    return _first(leaf) if isinstance(leaf, BaseExceptionGroup) else leaf


def never_waits(spec: MatchSpec) -> bool:
    """Every seat is a built-in bot run in process: the match never waits for anything
    (no process, no deadline, no task beside it)."""
    return spec.in_process and all(b.is_builtin for b in spec.bots)


def play_match(spec: MatchSpec) -> MatchOutcome:
    """Synchronous :func:`run_match`, in a trio loop of its own; or, when the match
    :func:`never_waits`, driven directly: starting and closing a trio loop cost more
    than the referee's own work in a short match (Sakura's: 30-40 decisions)."""
    if never_waits(spec):
        return _drive(run_match(spec))
    return trio.run(run_match, spec)


def _drive(match: Coroutine[Any, Any, MatchOutcome]) -> MatchOutcome:
    """Run a coroutine that never suspends to its end, without an event loop."""
    try:
        match.send(None)
    except StopIteration as done:
        return cast(MatchOutcome, done.value)
    match.close()
    raise RuntimeError("an in-process match waited for something: a bug in the referee")
