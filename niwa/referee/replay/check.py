"""``niwa replay verify``: check everything a replay claims that a rating or a reader
relies on, with nothing but the engine, the seed and the referee's own rules.

The match is re-simulated from the header (game, version, players, options, seed) and
the recorded moves, and every claim is compared with what the referee would have
written:

* every move is legal and made by the seats that were to move; every state hash (in
  niwa-replay/2, one at least every CHECKPOINT_EVERY steps and after the last) and
  every step's chain (niwa-replay/2);
* every chance outcome is the one the seed's chance stream draws;
* every default move (a failed decision, or a seat that is out) is the one the seat's
  seeded default stream draws;
* each seat's statuses follow the referee's rule: CRASHED or DISCONNECTED, or the
  ``max_failures``-th failure, puts it out; after that only OUT moves;
* the result: scores and ``game_places`` from the engine, each seat's outcome (status,
  reason, step, failures) from its moves, ``places`` from those by
  :func:`niwa.referee.match.final_places`, the number of decisions;
* the header: the game name and version, the options, one seat per player, the
  built-in bots' names and versions; clocks that never exceed the time control nor grow.

What the file alone cannot prove (notes, debug text, timings, details, stderr, a bot
directory's name and version, the match id and start time) needs the ladder's stored
hash.

Also here: the type checks the reader applies to every line, and the re-simulation
(:func:`states`) that ``niwa replay show`` and ``niwa replay ask`` walk.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from enum import StrEnum
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from niwa import engine
from niwa.bots.sdk import DEBUG_LIMIT, NOTE_LIMIT, PV_LIMIT
from niwa.engine import CHANCE, JSON, Action, Game, State, canonical_json, describe_move
from niwa.referee.failures import FATAL, Failure, MoveStatus, SeatStatus
from niwa.referee.replay.model import (
    CHECKPOINT_EVERY,
    MAX_PLAYERS,
    MOVE_STATUSES,
    SCHEMA,
    Header,
    Move,
    MoveThinking,
    Replay,
    ReplayError,
    ResultLine,
    SeatOutcome,
    Step,
    chain_next,
    chain_start,
    is_checkpoint,
)
from niwa.referee.seeds import stream
from niwa.referee.text import printable


def _type_name(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _convert(value: Any, tp: Any, name: str, where: str) -> Any:
    """``value`` checked against the annotation ``tp`` (dataclasses built recursively)."""
    origin = get_origin(tp)
    if tp is Any:
        return value
    if origin in (Union, UnionType):
        if value is None and type(None) in get_args(tp):
            return None
        (inner,) = [a for a in get_args(tp) if a is not type(None)]
        return _convert(value, inner, name, where)
    if origin is Literal:
        if value not in get_args(tp) or not isinstance(value, str):
            allowed = ", ".join(get_args(tp))
            raise ReplayError(f"{where}: field {name!r} must be one of {allowed}")
        return value
    if isinstance(tp, type) and issubclass(tp, StrEnum):
        if not isinstance(value, str) or value not in tp.__members__.values():
            allowed = ", ".join(tp)
            raise ReplayError(f"{where}: field {name!r} must be one of {allowed}")
        return tp(value)
    if origin is list:
        if not isinstance(value, list):
            raise ReplayError(f"{where}: field {name!r} must be an array, not {_type_name(value)}")
        (item,) = get_args(tp)
        return [_convert(v, item, f"{name}[{i}]", where) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ReplayError(f"{where}: field {name!r} must be an object, not {_type_name(value)}")
        _, item = get_args(tp)
        return {k: _convert(v, item, f"{name}.{k}", where) for k, v in value.items()}
    if is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, dict):
            raise ReplayError(f"{where}: field {name!r} must be an object, not {_type_name(value)}")
        return _build(tp, value, where, name + ".")
    check = _SCALARS.get(tp)
    if check is None:  # a field type this reader does not know: a bug here, not in the file
        raise TypeError(f"replay field {name!r} has an annotation the reader cannot check")
    if not check[0](value):
        raise ReplayError(f"{where}: field {name!r} must be {check[1]}, not {_type_name(value)}")
    return value


_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    bool: (lambda v: isinstance(v, bool), "true or false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    float: (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number"),
    str: (lambda v: isinstance(v, str), "a string"),
}


_T = TypeVar("_T")


@functools.cache
def _schema(cls: type) -> tuple[dict[str, Any], dict[str, Field[Any]]]:
    """A dataclass's field types and fields (evaluating annotations is slow: once)."""
    return get_type_hints(cls), {f.name: f for f in fields(cls)}


def _build(cls: type[_T], d: dict[str, Any], where: str, prefix: str = "") -> _T:
    """An instance of the dataclass ``cls`` from ``d``: every field typed, none unknown."""
    hints, known = _schema(cls)  # type: ignore[arg-type]  # a class is hashable
    unknown = sorted(k for k in d if k not in known and k != "kind")
    if unknown:
        raise ReplayError(f"{where}: unknown field {prefix}{printable(unknown[0], 40)!r}")
    values: dict[str, Any] = {}
    for name, f in known.items():
        if name not in d:
            if f.default is MISSING and f.default_factory is MISSING:
                raise ReplayError(f"{where}: field {prefix}{name!r} is missing")
            continue
        values[name] = _convert(d[name], hints[name], prefix + name, where)
    return cls(**values)


def _header(d: dict[str, Any], where: str) -> Header:
    players = d.get("players")
    if isinstance(players, int) and not 1 <= players <= MAX_PLAYERS:
        raise ReplayError(f"{where}: {players} players: a replay has 1 to {MAX_PLAYERS}")
    header = _build(Header, d, where)
    if len(header.seats) != header.players:
        raise ReplayError(
            f"{where}: {len(header.seats)} seats listed for {header.players} players"
        )
    for i, s in enumerate(header.seats):
        if s.seat != i:
            raise ReplayError(f"{where}: seats[{i}] says seat {s.seat}: seats must be 0, 1, ...")
    for tc in [header.time_control, *(s.time_control for s in header.seats if s.time_control)]:
        if sorted(tc) != ["bank_ms", "per_decision_ms"] or min(tc.values()) < 0:
            raise ReplayError(
                f"{where}: time_control must be per_decision_ms and bank_ms, both 0 or more"
            )
    if header.max_failures < 1:
        raise ReplayError(f"{where}: max_failures must be at least 1")
    fork = header.fork
    if fork is not None and (fork.at < 0 or not SHA256_HEX.fullmatch(fork.replay_sha256)):
        raise ReplayError(
            f"{where}: fork must name a step (0 or more) and a SHA-256 of 64 hex digits"
        )
    _check_names(header, where)
    return header


SHA256_HEX = re.compile(r"[0-9a-f]{64}")
#: What a header field that names something may hold: the match id names the bots'
#: cgroups, their log files and their processes' NIWA_MATCH; game and version pick the
#: rules. Letters, digits and ``_.@+-``, at most 64, no ``..``: never a path.
NAME_FIELD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}")
#: Free text of the header (a seat's bot as given, which may be a directory; its name
#: and version, which name nothing a reader makes, and a built-in's carry its options,
#: as ``mcts?seconds=0.03``; the start time): bounded and without control or format
#: characters.
TEXT_FIELD_CHARS = {"bot": 4096, "name": 256, "version": 256, "started": 64}


def name_problem(value: str) -> str:
    """Why ``value`` cannot name a file, cgroup or process ("" when it can)."""
    if not NAME_FIELD.fullmatch(value) or ".." in value:
        return (
            f"{_shown(value)} is not a name: letters, digits and _.@+- only "
            "(at most 64, no '..')"
        )
    return ""


def _shown(value: str) -> str:
    return f'"{printable(value, 40)}"'


def _check_names(header: Header, where: str) -> None:
    """Refuse a header whose fields could name something they should not: checked here,
    at read time, so every reader (verify, show, ask, html, the ladder) is covered."""
    named = {"game": header.game, "version": header.version}
    if header.match_id:  # "" in files written without an id
        named["match_id"] = header.match_id
    for name, value in named.items():
        problem = name_problem(value)
        if problem:
            raise ReplayError(f"{where}: field {name!r}: {problem}")
    texts = {"started": header.started}
    for s in header.seats:
        texts.update({f"seats[{s.seat}].{k}": getattr(s, k) for k in ("bot", "name", "version")})
    for name, value in texts.items():
        limit = TEXT_FIELD_CHARS[name.rpartition(".")[2]]
        if len(value) > limit:
            raise ReplayError(f"{where}: field {name!r} is over {limit} characters")
        if printable(value) != value:
            raise ReplayError(
                f"{where}: field {name!r} holds control characters: {_shown(value)}"
            )


def _check_step(step: Step, position: int, header: Header, where: str) -> None:
    players = header.players
    if step.index != position:
        raise ReplayError(f"{where}: step index {step.index}, expected {position}")
    if header.schema == SCHEMA:
        if not step.chain:
            raise ReplayError(f"{where}: field 'chain' is missing")
    else:
        if not step.hash:
            raise ReplayError(f"{where}: field 'hash' is missing")
        if step.chain:
            raise ReplayError(f"{where}: unknown field 'chain' (a {header.schema} step has none)")
    seats = [m.seat for m in step.moves]
    if step.kind == "chance":
        if seats != [CHANCE]:
            raise ReplayError(f"{where}: a chance step has one move, by seat {CHANCE}")
        return
    if not seats or len(set(seats)) != len(seats) or not all(0 <= s < players for s in seats):
        raise ReplayError(
            f"{where}: a decision has one move per deciding seat, seats 0 to {players - 1}"
        )
    for m in step.moves:
        if m.status not in MOVE_STATUSES:
            raise ReplayError(
                f"{where}: status {printable(m.status, 40)!r} of seat {m.seat} is not one of "
                f"{', '.join(sorted(MOVE_STATUSES))}"
            )


def _check_result(result: ResultLine, players: int, where: str) -> None:
    for name in ("scores", "places", "game_places", "seats"):
        if len(getattr(result, name)) != players:
            raise ReplayError(f"{where}: result {name} must have {players} entries, one per seat")
    for i, s in enumerate(result.seats):
        if s.seat != i:
            raise ReplayError(f"{where}: result seats[{i}] says seat {s.seat}")
    places_ok = all(0 <= p < players for p in (*result.places, *result.game_places))
    if not places_ok:
        raise ReplayError(f"{where}: places run from 0 to {players - 1}")
    if not all(math.isfinite(x) for x in result.scores):
        raise ReplayError(f"{where}: scores must be finite numbers")


def new_game(replay: Replay, game: Game) -> State:
    """The start of the replayed match: its options checked as the referee checks them."""
    h = replay.header
    try:
        options = game.info.validate(h.players, h.options)
        return game.new_game(h.players, options)
    except engine.OptionError as e:
        raise ReplayError(f"header: {printable(str(e), 200)}") from None
    except Exception as e:  # the game's own code on options it never saw: not a replay
        raise ReplayError(f"header: the game cannot start from it ({_failure(e)})") from None


def recorded_joint(step: Step, state: State) -> dict[int, Action]:
    """The step's moves as the engine's own legal actions; ReplayError naming the step if
    they are not who is to move, or not legal (including an impossible chance outcome)."""
    to_move = state.to_move()
    seats = tuple(m.seat for m in step.moves)
    if seats != to_move:
        raise ReplayError(
            f"step {step.index}: the recorded move is illegal: seats {list(seats)} moved "
            f"but {list(to_move)} were to move"
        )
    joint: dict[int, Action] = {}
    for m in step.moves:
        if m.seat == CHANCE:
            options = [a for a, p in state.chance_outcomes() if p > 0]
        else:
            options = state.legal_actions(m.seat)
        wanted = canonical_json(m.action)
        found = next((a for a in options if a == m.action), _NONE)  # fast; then exact:
        if found is _NONE or canonical_json(found) != wanted:
            found = next((a for a in options if canonical_json(a) == wanted), _NONE)
        if found is _NONE:
            who = "chance" if m.seat == CHANCE else f"seat {m.seat}"
            raise ReplayError(
                f"step {step.index}: the recorded move is illegal: {who} cannot play "
                f"{printable(describe_move(state, m.seat, m.action), 200)} here "
                f"({printable(wanted, 200)}; {len(options)} legal)"
            )
        joint[m.seat] = found
    return joint


_NONE = object()


def _failure(e: BaseException) -> str:
    return printable(f"{type(e).__name__}: {e}", 200)


def apply_step(step: Step, state: State) -> None:
    """Apply one recorded step to ``state``; ReplayError if it cannot be."""
    if state.is_over():
        raise ReplayError(f"step {step.index}: the game was already over")
    joint = recorded_joint(step, state)
    try:
        state.apply(joint)
    except Exception as e:  # the engine refusing a legal move is still this file's step
        raise ReplayError(
            f"step {step.index}: the recorded move is illegal: {_failure(e)}"
        ) from None


def states(replay: Replay, game: Game | None = None) -> Iterator[tuple[Step, State, State]]:
    """Re-simulate: yield (step, state before it, state after it) for every step.

    ``game`` defaults to the registered game the header names. The state after is the
    live object; clone it to keep it. Every move is checked legal before it is applied,
    so a forged or corrupt file raises :class:`ReplayError`, never the game's errors."""
    game = game or replay.game()
    state = new_game(replay, game)
    for step in replay.steps:
        before = state.clone()
        apply_step(step, state)
        yield step, before, state


class ReplayMismatch(ReplayError):
    """A replay that reads but does not check: one line per difference in ``problems``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


#: Differences listed before the rest are only counted.
MAX_PROBLEMS = 50
#: A seat whose moves from some step to its last are exactly its seeded default moves,
#: with this many bits of choice among them, was out and relabelled OK: an honest bot
#: cannot know the default stream (it gets another seed), so by chance this happens
#: once in 2**40.
DEFAULT_RUN_BITS = 40.0
_FAILURES = frozenset(str(f) for f in Failure)


@dataclass
class Report:
    steps: int = 0  # steps re-simulated and checked
    problems: list[str] = field(default_factory=list)
    complete: bool = False  # the replay has a result line, and it was checked


def thinking_problems(kept: MoveThinking, legal: int, players: int) -> list[str]:
    """What is wrong with a replay's recorded thinking for a decision among ``legal``
    actions (the replay checker's side of :func:`record`); [] if nothing."""
    problems = []
    for name, numbers, count in (("shares", kept.shares, legal),
                                 ("values", kept.values, players)):
        if numbers and len(numbers) != count:
            problems.append(f"expected 0 or {count} {name}, found {len(numbers)}")
        if any(not 0 <= x <= 1 for x in numbers):
            problems.append(f"expected {name} in [0, 1]")
    if len(kept.pv) > PV_LIMIT:
        problems.append(f"expected at most {PV_LIMIT} pv actions, found {len(kept.pv)}")
    return problems


def _show(value: JSON) -> str:
    return printable(canonical_json(value), 120)


@dataclass
class _SeatTrack:
    """What a seat's moves say about it, as the referee counts."""

    moves: int = 0
    failures: int = 0
    out: bool = False
    at: int | None = None  # the step it went out at; None with ``out`` = at start-up
    reason: str = ""
    last_clock: int | None = None
    # Copies of the default stream started at one of its OK moves, kept while every
    # move since is what that copy draws: (step, stream, bits of evidence).
    shadows: list[tuple[int, random.Random, float]] = field(default_factory=list)


class _Checker:
    def __init__(self, replay: Replay, game: Game | None) -> None:
        self.replay = replay
        self.h = replay.header
        self.game = game
        self.report = Report()
        self.dropped = 0
        self.hash_mismatches: list[int] = []
        self.chain_mismatches: list[int] = []
        self.chained = self.h.schema == SCHEMA  # niwa-replay/2: chains, hashes at checkpoints
        self.chain = chain_start(self.h)
        self.seats = [_SeatTrack() for _ in range(self.h.players)]
        # A fork's recorded steps drew from the seed of the replay it was forked from.
        first = self.h.seed if self.h.fork is None else self.h.fork.seed
        self.defaults = [stream(first, "default", s) for s in range(self.h.players)]
        self.chance: random.Random | None = stream(first, "chance")
        self.decisions = 0

    def problem(self, text: str) -> None:
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(text)
        else:
            self.dropped += 1

    # -- the header ----------------------------------------------------------------

    def load_game(self) -> Game | None:
        h = self.h
        game = self.game
        if game is None:
            try:
                game = engine.load(h.game)
            except engine.UnknownGame:
                raise ReplayError(
                    f"the replay is for the game {printable(h.game, 60)!r}, which is not "
                    f"installed: registered games: {', '.join(engine.games())}"
                ) from None
        if game.info.name != h.game:
            self.problem(f"header game: expected {game.info.name}, found {printable(h.game, 60)}")
        if game.info.version != h.version:
            self.problem(
                f"header version: expected {game.info.version} (the rules of "
                f"{game.info.name} installed here), found {printable(h.version, 60)}"
            )
            return None  # different rules: nothing after this would mean anything
        return game

    def check_header(self, game: Game) -> None:
        h = self.h
        try:
            options = game.info.validate(h.players, h.options)
        except engine.OptionError:
            return  # new_game reports it
        if options != h.options:
            self.problem(f"header options: expected {_show(options)}, found {_show(h.options)}")
        if h.time_control["per_decision_ms"] < 1:
            self.problem("header time_control.per_decision_ms: expected 1 or more, found 0")
        from niwa.referee.match import BotSpec  # match imports this package

        for info in h.seats:
            if not info.bot.startswith("builtin:"):
                continue  # a bot directory: only the ladder knows what it held
            try:
                manifest = BotSpec.parse(info.bot).manifest()
            except Exception:  # its options are the file's text: any refusal means "not ours"
                self.problem(
                    f"header seats[{info.seat}].bot: {printable(info.bot, 60)} is not a "
                    "built-in bot of this niwa"
                )
                continue
            for name in ("name", "version"):
                want, got = getattr(manifest, name), getattr(info, name)
                if want != got:
                    self.problem(
                        f"header seats[{info.seat}].{name}: expected {printable(want, 60)}, "
                        f"found {printable(got, 60)}"
                    )

    # -- the steps -----------------------------------------------------------------

    def check_move(self, step: Step, move: Move, state: State) -> None:
        s, i = move.seat, step.index
        track = self.seats[s]
        where = f"step {i} seat {s}"
        if move.status == MoveStatus.OUT:
            if not track.out and track.moves == 0:
                track.out, track.failures = True, 1  # out before its first decision
            elif not track.out:
                self.problem(f"{where} status: expected a decision (the seat is in), found OUT")
        elif track.out:
            since = "start-up" if track.at is None else f"step {track.at}"
            self.problem(f"{where} status: expected OUT (out since {since}), found {move.status}")
        elif move.status in _FAILURES:
            track.failures += 1
            if move.status in FATAL or track.failures >= self.h.max_failures:
                track.out, track.at, track.reason = True, i, move.status
        track.moves += 1
        legal = state.legal_actions(s)
        self.follow_shadows(track, move, legal)
        if move.status == MoveStatus.OK and len(legal) > 1:
            copy = random.Random()
            copy.setstate(self.defaults[s].getstate())
            track.shadows.append((step.index, copy, 0.0))
            self.follow_shadows(track, move, legal, only_last=True)
        if move.status != MoveStatus.OK:  # the referee drew a default move
            expected = self.defaults[s].choice(legal)
            if canonical_json(expected) != canonical_json(move.action):
                self.problem(
                    f"{where} default move ({move.status}): expected {_show(expected)} "
                    f"(drawn from the seed), found {_show(move.action)}"
                )
            if move.note:
                self.problem(f"{where} note: expected none on a default move, found one")
            if move.debug:
                self.problem(f"{where} debug: expected none on a default move, found some")
            if move.thinking is not None:
                self.problem(f"{where} thinking: expected none on a default move, found some")
        if len(move.note) > NOTE_LIMIT:
            self.problem(f"{where} note: expected at most {NOTE_LIMIT} characters, "
                         f"found {len(move.note)}")
        size = len(move.debug.encode("utf-8", "replace"))
        if size > DEBUG_LIMIT:  # debug text is never rated: only its bound is checked
            self.problem(f"{where} debug: expected at most {DEBUG_LIMIT} bytes, found {size}")
        if move.thinking is not None:
            for problem in thinking_problems(move.thinking, len(legal), self.h.players):
                self.problem(f"{where} thinking: {problem}")
        self.check_clock(where, track, move)

    @staticmethod
    def follow_shadows(
        track: _SeatTrack, move: Move, legal: list[JSON], only_last: bool = False
    ) -> None:
        """Advance each shadow stream by this move; drop those it does not match."""
        wanted = canonical_json(move.action)
        bits = math.log2(len(legal)) if legal else 0.0
        kept = track.shadows[:-1] if only_last else []
        for start, rng, evidence in track.shadows[-1:] if only_last else track.shadows:
            if canonical_json(rng.choice(legal)) == wanted:
                kept.append((start, rng, evidence + bits))
        track.shadows = kept

    def check_default_runs(self) -> None:
        for seat, track in enumerate(self.seats):
            found = [(start, bits) for start, _, bits in track.shadows if bits >= DEFAULT_RUN_BITS]
            if found:
                start, bits = min(found)
                self.problem(
                    f"step {start} seat {seat} status: expected OUT (every move of the seat "
                    f"from here on is its seeded default move, {bits:.0f} bits of choice), "
                    "found OK"
                )

    def check_clock(self, where: str, track: _SeatTrack, move: Move) -> None:
        if move.status == MoveStatus.OUT or move.clock_ms is None:
            return
        tc = self.h.seats[move.seat].time_control or self.h.time_control
        most = tc["per_decision_ms"] + tc["bank_ms"]
        if track.last_clock is not None:
            most = min(most, track.last_clock)  # the bank only ever shrinks
        if move.clock_ms > most or move.clock_ms < 0:
            self.problem(f"{where} clock_ms: expected 0 to {most}, found {move.clock_ms}")
        track.last_clock = move.clock_ms

    def start_fork(self) -> None:
        """From a fork's first own step: its own seed's default streams, fresh clocks
        and failure counts (its bots started there). Its chance reuses the forked-from
        replay's where legal, which this file alone cannot tell from its seed's draws:
        only its legality is checked."""
        self.defaults = [stream(self.h.seed, "default", s) for s in range(self.h.players)]
        self.chance = None
        for track in self.seats:
            track.last_clock, track.failures, track.shadows = None, 0, []

    def check_step(self, step: Step, state: State) -> bool:
        """Check one step and apply it; False when the re-simulation cannot go on."""
        if self.h.fork is not None and step.index == self.h.fork.at:
            self.start_fork()
        if not state.is_over():
            kind = "chance" if state.to_move() == (CHANCE,) else "decision"
            if step.kind != kind:
                self.problem(f"step {step.index} kind: expected {kind}, found {step.kind}")
                return False
        before = state.clone()
        try:
            apply_step(step, state)
        except ReplayError as e:
            self.problem(str(e))
            return False
        if step.kind == "chance":
            expected = None if self.chance is None else engine.sample_chance(before, self.chance)
            found = step.moves[0].action
            if expected is not None and canonical_json(expected) != canonical_json(found):
                self.problem(
                    f"step {step.index} chance outcome: expected {_show(expected)} "
                    f"(drawn from the seed), found {_show(found)}"
                )
        else:
            self.decisions += 1
            for move in step.moves:
                self.check_move(step, move, before)
        if self.chained:
            self.check_chain(step)
            if not step.hash and is_checkpoint(step.index, state.is_over()):
                self.problem(
                    f"step {step.index}: no state hash, but every {CHECKPOINT_EVERY}th step "
                    "and the last carry one"
                )
                return True
        if step.hash or not self.chained:
            got = engine.state_hash(state)
            if got != step.hash:
                if not self.hash_mismatches:
                    self.problem(
                        f"step {step.index}: state hash {got} but the replay says "
                        f"{printable(step.hash, 40)}"
                    )
                self.hash_mismatches.append(step.index)
        return True

    def check_chain(self, step: Step) -> None:
        """The chain over every recorded action and chance outcome up to ``step``."""
        self.chain = chain_next(self.chain, step.kind, step.index, step.moves)
        if step.chain != self.chain:
            if not self.chain_mismatches:
                self.problem(
                    f"step {step.index}: chain {self.chain} but the replay says "
                    f"{printable(step.chain, 40)}"
                )
            self.chain_mismatches.append(step.index)

    # -- the result ----------------------------------------------------------------

    def expected_outcome(self, seat: int, recorded: SeatOutcome) -> SeatOutcome:
        t = self.seats[seat]
        if not t.out:
            if t.moves == 0 and recorded.status == SeatStatus.OUT and recorded.at is None:
                return recorded  # never asked anything: its start-up cannot be checked
            # The referee records failures only for seats that went out; accept either.
            failures = recorded.failures if recorded.failures in (0, t.failures) else t.failures
            return SeatOutcome(seat, failures=failures)
        reason = t.reason
        if t.at is None:  # out at start-up: any failure may have kept it from starting
            reason = recorded.reason if recorded.reason in _FAILURES else "a failure"
        return SeatOutcome(seat, SeatStatus.OUT, reason, t.at, failures=t.failures)

    def check_result(self, state: State) -> None:
        r = self.replay.result
        assert r is not None
        if not state.is_over():
            self.problem("result: the recorded moves do not finish the game")
            return
        game_result = state.result()
        if list(game_result.scores) != r.scores:
            self.problem(f"result scores: expected {_show(list(game_result.scores))}, "
                         f"found {_show(r.scores)}")
        if list(game_result.places) != r.game_places:
            self.problem(f"result game_places: expected {_show(list(game_result.places))}, "
                         f"found {_show(r.game_places)}")
        expected = [self.expected_outcome(s, o) for s, o in enumerate(r.seats)]
        for want, got in zip(expected, r.seats, strict=True):
            for name in ("status", "reason", "at", "failures"):
                w, g = getattr(want, name), getattr(got, name)
                if w != g:
                    self.problem(
                        f"result seats[{want.seat}].{name}: expected {_show(w)}, found {_show(g)}"
                    )
        from niwa.referee.match import final_places  # match imports this package

        places = final_places(game_result.places, expected)
        if places != r.places:
            self.problem(f"result places: expected {_show(places)}, found {_show(r.places)}")
        if self.decisions != r.decisions:
            self.problem(f"result decisions: expected {self.decisions}, found {r.decisions}")
        self.report.complete = True

    def run(self) -> Report:
        game = self.load_game()
        if game is None:
            return self.report
        self.check_header(game)
        try:
            state = new_game(self.replay, game)
        except ReplayError as e:
            self.problem(str(e))
            return self.report
        whole = True
        for step in self.replay.steps:
            if not self.check_step(step, state):
                whole = False
                break
            self.report.steps += 1
        self.check_default_runs()
        if len(self.chain_mismatches) > 1:
            self.problem(
                f"chains also differ at {len(self.chain_mismatches) - 1} later steps "
                f"(the last at step {self.chain_mismatches[-1]})"
            )
        if len(self.hash_mismatches) > 1:
            self.problem(
                f"state hashes also differ at {len(self.hash_mismatches) - 1} later steps "
                f"(the last at step {self.hash_mismatches[-1]})"
            )
        if whole and self.replay.result is not None:
            self.check_result(state)
        if self.dropped:
            self.report.problems.append(f"... and {self.dropped} more differences")
        return self.report


def check(replay: Replay, game: Game | None = None) -> Report:
    """Every difference between what ``replay`` claims and what re-playing it gives.

    ``game`` defaults to the registered game the header names; ReplayError if that is
    not installed."""
    return _Checker(replay, game).run()


def verify(replay: Replay, game: Game | None = None) -> int:
    """Check everything the replay claims (see :func:`check`).

    Returns the number of steps checked; raises :class:`ReplayMismatch` listing every
    difference (or :class:`ReplayError` if the game it names is not installed)."""
    report = check(replay, game)
    if report.problems:
        raise ReplayMismatch(report.problems)
    return report.steps
