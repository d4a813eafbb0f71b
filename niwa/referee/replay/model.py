"""The replay data model: the header, step and result lines as dataclasses, the schema
constants, and the hashes chained over a match (what the writer writes and the reader
builds). The file format is described in docs/protocol.md."""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

from niwa import engine
from niwa.engine import CHANCE, JSON, Action, Game, canonical_json
from niwa.errors import RefereeError
from niwa.referee.failures import Failure, MoveStatus, SeatStatus

SCHEMA = "niwa-replay/2"
#: Replay schemas this reader reads: /1 hashes the full state after every step.
SCHEMAS = ("niwa-replay/1", SCHEMA)
#: In niwa-replay/2, the full state is hashed after every this-many steps (step
#: indexes CHECKPOINT_EVERY - 1, 2 * CHECKPOINT_EVERY - 1, ...) and after the last.
CHECKPOINT_EVERY = 64
#: Step lines are written at least this often (seconds): a referee killed mid-match
#: loses at most the steps of the last interval; the header and the result line are
#: written at once.
FLUSH_INTERVAL_S = 0.5
#: A replay has 1 to this many players.
MAX_PLAYERS = 64

StepKind = Literal["decision", "chance"]
#: How a seat's bot ran: its own process in the bubblewrap sandbox, its own process
#: without it (``niwa play --no-sandbox``), or a built-in inside the referee's process.
#: ``human``: a person played the seat (``niwa play --human``).
Isolation = Literal["sandbox", "none", "in-process", "human", ""]

#: What a seat's move may say: OK, a failure (a seeded default move was played), or OUT.
MOVE_STATUSES = frozenset({*MoveStatus, *Failure})


class ReplayError(RefereeError, ValueError):
    """A replay file that cannot be read, or that does not re-simulate."""


@dataclass(frozen=True)
class SeatInfo:
    """Who sat where: the bot as given (``builtin:random``, a directory, or the label
    the caller gave it, e.g. the ladder's ``gardener@0.2.0``), its manifest name and
    version, and how it ran (:data:`ISOLATION`; "" in files written before it was
    recorded, where only the header's ``sandbox`` tells)."""

    seat: int
    bot: str
    name: str
    version: str
    isolation: Isolation = ""
    #: The seat's own time control when it differs from the header's (a person's
    #: seat); absent otherwise.
    time_control: dict[str, int] | None = None


@dataclass(frozen=True)
class ForkOrigin:
    """Where a forked match (``niwa replay fork``) began: the SHA-256 of the replay it
    was forked from, the step it played on from (its steps before ``at`` are that
    replay's) and that replay's seed, which drew those steps' chance and defaults."""

    replay_sha256: str
    at: int
    seed: int


@dataclass(frozen=True)
class Header:
    game: str
    version: str
    players: int
    options: dict[str, JSON]
    seats: list[SeatInfo]
    seed: int
    time_control: dict[str, int]
    match_id: str = ""
    started: str = ""
    sandbox: bool = False
    schema: str = SCHEMA
    clock: str = "wall"  # what decisions were charged: "cpu" or "wall" (older files: wall)
    max_failures: int = 3  # failed decisions that put a seat out (absent before: 3)
    fork: ForkOrigin | None = None  # absent from the file unless the match is a fork

    def to_json(self) -> dict[str, JSON]:
        d = _plain(self)
        if self.fork is None:  # unforked headers keep the bytes they always had
            del d["fork"]
        else:
            d["fork"] = _plain(self.fork)
        for seat in d["seats"]:  # a seat's own clock is written only when it has one
            if seat["time_control"] is None:
                del seat["time_control"]
        return {"kind": "header", **d}

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> Header:
        from niwa.referee.replay.check import _header  # check imports this module

        return _header(d, "header")


@dataclass(frozen=True)
class MoveThinking:
    """What a bot thought of its decision (``ActReply.thinking``, checked and rounded
    by :mod:`niwa.referee.thinking`): ``shares``, one per legal action in the engine's
    order, or empty; ``values``, one per seat, the expected result in [0, 1], or empty;
    ``pv``, the line the bot expected, as actions. Private like ``debug``."""

    shares: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    pv: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, JSON]:
        return {key: getattr(self, key) for key in ("pv", "shares", "values") if getattr(self, key)}


@dataclass(frozen=True)
class Move:
    """One seat's part of a step. For chance, ``seat`` is -1 and only ``action`` is set.

    ``status`` is OK, or the failure (TIMEOUT, ILLEGAL, CRASHED, DISCONNECTED) that
    made the referee play a default move, or OUT when the seat was already out.
    ``clock_ms`` is the time the seat had for this decision (what ``Act`` was told).
    ``debug`` is the bot's debug text for the decision (at most DEBUG_LIMIT bytes; not
    rated): absent from the file when empty, so older files read and hash the same.
    ``thinking`` (:class:`MoveThinking`) likewise: absent when the bot sent none.
    """

    seat: int
    action: Action
    status: str = MoveStatus.OK
    wall_ms: float | None = None
    cpu_ms: float | None = None
    clock_ms: int | None = None
    note: str = ""
    detail: str = ""
    debug: str = ""
    thinking: MoveThinking | None = None

    @classmethod
    def answered(
        cls, seat: int, action: Action, wall_ms: float, cpu_ms: float | None, clock_ms: int,
        note: str, debug: str, thinking: MoveThinking | None = None,
    ) -> Move:
        """An OK move, made without the frozen ``__init__`` (a guarded setattr per field:
        about 1 µs of each decision the referee records); equal to
        ``Move(seat, action, MoveStatus.OK, wall_ms, cpu_ms, clock_ms, note, debug=debug)``."""
        move = object.__new__(cls)
        move.__dict__.update(
            seat=seat, action=action, status=MoveStatus.OK, wall_ms=wall_ms, cpu_ms=cpu_ms,
            clock_ms=clock_ms, note=note, detail="", debug=debug, thinking=thinking,
        )
        return move

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {"seat": self.seat, "action": self.action}
        if self.seat == CHANCE:
            return d
        d["status"] = self.status
        for key in ("wall_ms", "cpu_ms"):
            value = getattr(self, key)
            d[key] = None if value is None else round(value, 3)
        d["clock_ms"] = self.clock_ms
        if self.note:
            d["note"] = self.note
        if self.detail:
            d["detail"] = self.detail
        if self.debug:
            d["debug"] = self.debug
        if self.thinking is not None:
            d["thinking"] = self.thinking.to_json()
        return d

    def line(self, action: str | None = None) -> str:
        """``canonical_json(self.to_json())``, spelled directly (keys in order);
        ``action``: the action already in canonical JSON, if the caller has it."""
        if action is None:
            action = canonical_json(self.action)
        if self.seat == CHANCE:
            return f'{{"action":{action},"seat":{self.seat}}}'
        texts = ""  # the optional keys, between cpu_ms and seat in key order
        if self.debug or self.detail or self.note:
            texts = "".join(
                f'"{key}":{canonical_json(text)},'
                for key, text in (("debug", self.debug), ("detail", self.detail),
                                  ("note", self.note))
                if text
            )
        thinking = "" if self.thinking is None else \
            f'"thinking":{canonical_json(self.thinking.to_json())},'
        clock, status = self.clock_ms, self.status
        status = f'"{status}"' if status in _PLAIN_WORDS else _word(status)
        # The common values spelled inline (an int clock, a plain status): a call of
        # _number each cost as much as the rest of the line.
        return (
            f'{{"action":{action},"clock_ms":'
            f'{clock if type(clock) is int else _number(clock)},"cpu_ms":{_ms(self.cpu_ms)},'
            f'{texts}"seat":{self.seat},"status":{status},{thinking}'
            f'"wall_ms":{_ms(self.wall_ms)}}}'
        )


#: Words JSON spells as themselves in quotes: the statuses and step kinds a replay holds.
_PLAIN_WORDS = MOVE_STATUSES | {"decision", "chance"}


def _word(text: str) -> str:
    """``text`` in canonical JSON; a status or step kind without the encoder, which
    would add only the quotes."""
    return f'"{text}"' if text in _PLAIN_WORDS else canonical_json(text)


def _ms(value: float | None) -> str:
    """``_number(value, 3)``: a time in ms to the microsecond. A float of sensible size
    is spelled by "%.3f" less its trailing zeros, the same digits as
    ``repr(round(value, 3))`` (both round the exact value correctly to 3 decimals, and
    below 1e12 the shortest repr of that result is those decimals) in a third of the time."""
    if type(value) is float and -1e12 < value < 1e12:  # finite: NaN fails both
        text = f"{value:.3f}".rstrip("0")
        return text + "0" if text[-1] == "." else text
    return _number(value, 3)


def _number(value: float | None, digits: int | None = None) -> str:
    """A number as canonical JSON spells it (``round(value, digits)`` if digits)."""
    if value is None:
        return "null"
    if digits is not None:
        value = round(value, digits)
    # json spells an int as int.__repr__ and a finite float as float.__repr__: the same
    # text without a trip through the encoder (several numbers on every decision line).
    if type(value) is int:
        return repr(value)
    if type(value) is float and math.isfinite(value):
        return repr(value)
    return canonical_json(value)


@dataclass(frozen=True)
class Step:
    """One step. ``chain`` (niwa-replay/2) chains every recorded action and chance
    outcome up to this step (:func:`chain_next`); ``hash`` is the full state's hash
    after it: on every step in niwa-replay/1, at checkpoints and on the last step in
    niwa-replay/2 ("" elsewhere, absent from the file)."""

    index: int
    kind: StepKind
    moves: list[Move]
    hash: str = ""
    chain: str = ""

    def joint(self) -> dict[int, Action]:
        return {m.seat: m.action for m in self.moves}

    def line(self, actions: list[str] | None = None) -> str:
        """``canonical_json(self.to_json())``; a chance step (most steps of some games)
        is spelled directly, its keys in canonical order. ``actions``: the moves'
        actions already in canonical JSON (:func:`encoded_actions`), if the caller has
        them."""
        if actions is None:
            actions = encoded_actions(self.moves)
        if self.kind == "chance" and self.chain and [m.seat for m in self.moves] == [CHANCE]:
            return chance_line(self.index, actions[0], self.chain, self.hash)
        return step_text(self.index, self.kind, self.moves, actions, self.chain, self.hash)

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {
            "kind": self.kind,
            "index": self.index,
            "moves": [m.to_json() for m in self.moves],
        }
        if self.chain:
            d["chain"] = self.chain
        if self.hash:
            d["hash"] = self.hash
        return d

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> Step:
        from niwa.referee.replay.check import _build  # check imports this module

        return _build(cls, d, "step")


def _plain(obj: Any) -> dict[str, JSON]:
    """A dataclass of JSON values as a dict, nested dataclasses in lists included: what
    ``dataclasses.asdict`` gives for these lines, without its deep copies (10x faster)."""
    d: dict[str, JSON] = {}
    for name in _field_names(type(obj)):  # type: ignore[arg-type]  # a class is hashable
        value = getattr(obj, name)
        if isinstance(value, list) and value and is_dataclass(value[0]):
            value = [_plain(v) for v in value]
        d[name] = value
    return d


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def chain_start(header: Header) -> str:
    """The chain before step 0: bound to the match's game, rules, seats, options and
    seed, so a step cannot be moved to another match's file unnoticed."""
    what = [header.game, header.version, header.players, header.options, header.seed]
    return hashlib.sha256(canonical_json(what).encode()).hexdigest()[:16]


def encode(value: JSON) -> str:
    """``engine.canonical_json``, by this module's older name for it."""
    return canonical_json(value)


def encoded_actions(moves: list[Move]) -> list[str]:
    """Each move's action in canonical JSON: computed once per step, for both the chain
    and the step's line."""
    return [canonical_json(m.action) for m in moves]


def chain_next(
    chain: str, kind: str, index: int, moves: list[Move], actions: list[str] | None = None
) -> str:
    """The chain after a step: SHA-256 (first 16 hex digits) of the chain before it,
    the step's kind and index, and each move's seat and action in canonical JSON, all
    joined by "|" (``chain|kind|index|seat|action|seat|action...``). Cheap enough for
    every step, where hashing the full state is not. ``actions``: the moves' actions
    already encoded (:func:`encoded_actions`), if the caller has them."""
    if actions is None:
        actions = encoded_actions(moves)
    seats = "".join([f"|{m.seat}|{action}" for m, action in zip(moves, actions, strict=True)])
    return hashlib.sha256(f"{chain}|{kind}|{index}{seats}".encode()).hexdigest()[:16]


def chance_chain_next(chain: str, index: int, encoded_action: str) -> str:
    """:func:`chain_next` for a chance step, its outcome already in canonical JSON."""
    text = f"{chain}|chance|{index}|{CHANCE}|{encoded_action}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def chance_line(index: int, encoded_action: str, chain: str, digest: str) -> str:
    """A chance step's line in canonical JSON (keys in order), spelled directly: in
    some games most steps are chance draws."""
    hashed = f'"hash":"{digest}",' if digest else ""
    return (
        f'{{"chain":"{chain}",{hashed}"index":{index},"kind":"chance",'
        f'"moves":[{{"action":{encoded_action},"seat":{CHANCE}}}]}}'
    )


def step_text(
    index: int, kind: str, moves: list[Move], actions: list[str], chain: str, digest: str
) -> str:
    """:meth:`Step.line` from the step's parts (the match loop writes a decision without
    making a Step), ``actions`` being the moves' actions in canonical JSON."""
    chained = f'"chain":"{chain}",' if chain else ""
    hashed = f'"hash":"{digest}",' if digest else ""
    spelled = ",".join([m.line(a) for m, a in zip(moves, actions, strict=True)])
    return f'{{{chained}{hashed}"index":{index},"kind":{_word(kind)},"moves":[{spelled}]}}'


def is_checkpoint(index: int, last: bool) -> bool:
    """Whether a niwa-replay/2 step records the full state's hash."""
    return last or (index + 1) % CHECKPOINT_EVERY == 0


@dataclass(frozen=True)
class SeatOutcome:
    """How a seat ended: ``ok``, or ``out`` with the failure, the step where it went
    out, a detail line and the last lines of the bot's stderr."""

    seat: int
    status: SeatStatus = SeatStatus.OK
    reason: str = ""
    at: int | None = None
    detail: str = ""
    stderr_tail: list[str] = field(default_factory=list)
    failures: int = 0


@dataclass(frozen=True)
class ResultLine:
    """The final line. ``places`` put out seats last; ``game_places`` are the engine's."""

    scores: list[float]
    places: list[int]
    game_places: list[int]
    seats: list[SeatOutcome]
    decisions: int
    wall_ms: float

    def to_json(self) -> dict[str, JSON]:
        d = _plain(self)
        d["wall_ms"] = round(self.wall_ms, 3)
        return {"kind": "result", **d}

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> ResultLine:
        from niwa.referee.replay.check import _build  # check imports this module

        return _build(cls, d, "result")


@dataclass
class Replay:
    header: Header
    steps: list[Step]
    result: ResultLine | None

    def game(self) -> Game:
        game = engine.load(self.header.game)
        if game.info.version != self.header.version:
            raise ReplayError(
                f"replay is for {self.header.version} but the installed game is "
                f"{game.info.version}: install the niwa version that wrote it"
            )
        return game

