"""Replay files: one JSON object per line (JSON Lines), documented in docs/protocol.md.

The first line is the header, then one line per step (a decision of one or more seats,
or a chance outcome) with a hash chained over every recorded action and chance outcome
so far, the hash of the full state after it at checkpoints and after the last step,
and last the result::

    {"kind":"header","schema":"niwa-replay/2","game":"blossom","version":"blossom@2",...}
    {"kind":"chance","index":0,"moves":[{"seat":-1,"action":...}],"chain":"9a1e..."}
    {"kind":"decision","index":63,"moves":[...],"chain":"07bd...","hash":"3f0c..."}
    {"kind":"result","scores":[...],"places":[...],"seats":[{"seat":0,"status":"ok"},...]}

``niwa-replay/1`` files (a full-state hash on every step, no chain) still read and
verify.

Because chance outcomes are recorded like moves, :func:`niwa.referee.replay_check.verify`
re-simulates a file with nothing but the engine and checks every hash. :func:`states`
walks the match for ``niwa replay show`` and ``niwa replay ask``.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from pathlib import Path
from types import TracebackType, UnionType
from typing import IO, Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from niwa import engine
from niwa.engine import CHANCE, JSON, Action, Game, State, canonical_json, describe_move
from niwa.errors import RefereeError
from niwa.referee.failures import Failure
from niwa.referee.text import printable

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

StepKind = Literal["decision", "chance"]
#: How a seat's bot ran: its own process in the bubblewrap sandbox, its own process
#: without it (``niwa play --no-sandbox``), or a built-in inside the referee's process.
Isolation = Literal["sandbox", "none", "in-process", ""]

#: What a seat's move may say: OK, a failure (a seeded default move was played), or OUT.
MOVE_STATUSES = frozenset({"OK", "OUT", *(str(f) for f in Failure)})


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

    def to_json(self) -> dict[str, JSON]:
        return {"kind": "header", **_plain(self)}

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> Header:
        return _header(d, "header")


@dataclass(frozen=True)
class Move:
    """One seat's part of a step. For chance, ``seat`` is -1 and only ``action`` is set.

    ``status`` is OK, or the failure (TIMEOUT, ILLEGAL, CRASHED, DISCONNECTED) that
    made the referee play a default move, or OUT when the seat was already out.
    ``clock_ms`` is the time the seat had for this decision (what ``Act`` was told).
    ``debug`` is the bot's debug text for the decision (at most DEBUG_LIMIT bytes; not
    rated): absent from the file when empty, so older files read and hash the same.
    """

    seat: int
    action: Action
    status: str = "OK"
    wall_ms: float | None = None
    cpu_ms: float | None = None
    clock_ms: int | None = None
    note: str = ""
    detail: str = ""
    debug: str = ""

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
        return (
            f'{{"action":{action},"clock_ms":{_number(self.clock_ms)},'
            f'"cpu_ms":{_number(self.cpu_ms, 3)},{texts}"seat":{self.seat},'
            f'"status":{_word(self.status)},"wall_ms":{_number(self.wall_ms, 3)}}}'
        )


#: Words JSON spells as themselves in quotes: the statuses and step kinds a replay holds.
_PLAIN_WORDS = MOVE_STATUSES | {"decision", "chance"}


def _word(text: str) -> str:
    """``text`` in canonical JSON; a status or step kind without the encoder, which
    would add only the quotes."""
    return f'"{text}"' if text in _PLAIN_WORDS else canonical_json(text)


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
    parts = [chain, kind, str(index)]
    for m, action in zip(moves, actions, strict=True):
        parts += (str(m.seat), action)
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


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
    status: Literal["ok", "out"] = "ok"
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


class ReplayWriter:
    """Writes a replay in whole lines: the header and the result at once, step lines
    in batches at least every ``flush_interval_s`` (a write per step costs more than
    the rest of the step), so a killed referee leaves a readable prefix missing at
    most the steps of the last interval. :meth:`flush` writes what is pending (the
    referee also calls it while it waits for a bot)."""

    def __init__(self, path: str | Path, flush_interval_s: float = FLUSH_INTERVAL_S) -> None:
        self.path = Path(path)
        self.flush_interval_s = flush_interval_s
        # Unbuffered: every write is whole lines, so the file never ends mid-line
        # because a buffer filled up.
        self._file: IO[bytes] = self.path.open("wb", buffering=0)
        self._pending: list[str] = []
        self._flushed_at = time.monotonic()

    def _line(self, obj: dict[str, JSON]) -> None:
        self._pending.append(canonical_json(obj) + "\n")

    def flush(self) -> None:
        """Write every pending line now."""
        if self._pending:
            data = memoryview("".join(self._pending).encode())
            self._pending.clear()
            while data:
                data = data[os.write(self._file.fileno(), data):]
        self._flushed_at = time.monotonic()

    def header(self, header: Header) -> None:
        self._line(header.to_json())
        self.flush()

    def step(self, step: Step) -> None:
        self.step_line(step.line())

    def step_line(self, line: str) -> None:
        """A step already spelled as its line (:meth:`Step.line`, :func:`chance_line`)."""
        self._pending.append(line + "\n")
        if time.monotonic() - self._flushed_at >= self.flush_interval_s:
            self.flush()

    def result(self, result: ResultLine) -> None:
        self._line(result.to_json())
        self.flush()

    def close(self) -> None:
        if not self._file.closed:
            try:
                self.flush()
            finally:
                self._file.close()

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


#: Bounds checked while reading, before anything is allocated for what they bound.
#: The largest honest line (a result with every seat's stderr tail) is far below 1 MiB.
MAX_LINE_BYTES = 1 << 20
MAX_FILE_BYTES = 64 << 20
MAX_STEPS = 100_000
MAX_DEPTH = 32  # JSON nesting of one line; honest lines nest at most 6 deep
MAX_PLAYERS = 64
MAX_INT_DIGITS = 40  # a seed or a count; Python would otherwise parse 4,300 digits


def read(path: str | Path) -> Replay:
    """Parse a replay file; a missing result line is allowed (an interrupted match).

    Anything wrong with the file (unreadable, too large, not UTF-8, not JSON, nested
    too deep, a field of the wrong type, an unknown schema) raises :class:`ReplayError`
    with one line naming the file, the line and the field; nothing else escapes."""
    try:
        with Path(path).open("rb") as f:
            return _read(f, str(path))
    except OSError as e:
        raise ReplayError(f"cannot read replay {path}: {e.strerror or e}") from None


def parse(content: bytes, name: str) -> Replay:
    """:func:`read` for a file already in memory; ``name`` stands for it in errors."""
    return _read(io.BytesIO(content), name)


def _read(f: IO[bytes], path: str) -> Replay:
    header: Header | None = None
    steps: list[Step] = []
    result: ResultLine | None = None
    total = 0
    number = 0
    while True:
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        number += 1
        total += len(raw)
        where = f"{path}:{number}"
        if len(raw) > MAX_LINE_BYTES:
            raise ReplayError(f"{where}: line longer than {MAX_LINE_BYTES} bytes: not a replay")
        if total > MAX_FILE_BYTES:
            raise ReplayError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB: not a replay")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ReplayError(
                f"{where}: not UTF-8 text (byte {e.start}): not a replay"
            ) from None
        if not text.strip():
            continue
        if result is not None:
            raise ReplayError(f"{where}: a line after the result line: the file is corrupt")
        d = _parse_line(text, where)
        kind = d.get("kind")
        if header is None:
            if number != 1 or kind != "header":
                raise ReplayError(f"{path}: not a {SCHEMA} replay (line 1 must be its header)")
            if d.get("schema") not in SCHEMAS:
                found = d.get("schema")
                shown = printable(found, 40) if isinstance(found, str) else type(found).__name__
                raise ReplayError(
                    f"{path}: replay schema {shown!r}, but this niwa reads "
                    f"{' and '.join(SCHEMAS)} only"
                )
            header = _header(d, where)
        elif kind in ("decision", "chance"):
            if len(steps) >= MAX_STEPS:
                raise ReplayError(f"{where}: more than {MAX_STEPS} steps: not a replay")
            step = _build(Step, d, where)
            _check_step(step, len(steps), header, where)
            steps.append(step)
        elif kind == "result":
            result = _build(ResultLine, d, where)
            _check_result(result, header.players, where)
        elif kind == "header":
            raise ReplayError(f"{where}: a second header line: the file is corrupt")
        else:
            shown = printable(kind, 40) if isinstance(kind, str) else type(kind).__name__
            raise ReplayError(f"{where}: unknown line kind {shown!r}")
    if header is None:
        raise ReplayError(f"{path}: empty replay file")
    return Replay(header, steps, result)


def _reject_constant(name: str) -> None:
    raise ReplayError(f"{name} is not a number a replay holds")


def _bounded_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ReplayError(f"an integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


_STRUCTURE = re.compile(r'[\[\]{}"\\]')


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests JSON arrays/objects deeper than MAX_DEPTH (strings skipped)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    escape_at = -2
    for m in _STRUCTURE.finditer(text):
        ch = m.group()
        if in_string:
            # A backslash escapes the next character only when it is right after it.
            if escaped and m.start() == escape_at + 1:
                escaped = False
                continue
            escaped = False
            if ch == "\\":
                escaped, escape_at = True, m.start()
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _parse_line(text: str, where: str) -> dict[str, Any]:
    if _too_deep(text):
        raise ReplayError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels: not a replay")
    try:
        d = json.loads(text, parse_int=_bounded_int, parse_constant=_reject_constant)
    except ReplayError as e:
        raise ReplayError(f"{where}: {e}") from None
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise ReplayError(f"{where}: not JSON ({printable(str(e), 120)})") from None
    if not isinstance(d, dict):
        raise ReplayError(f"{where}: a JSON {_type_name(d)}, not an object: not a replay")
    return d


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
    tc = header.time_control
    if sorted(tc) != ["bank_ms", "per_decision_ms"] or min(tc.values()) < 0:
        raise ReplayError(
            f"{where}: time_control must be per_decision_ms and bank_ms, both 0 or more"
        )
    if header.max_failures < 1:
        raise ReplayError(f"{where}: max_failures must be at least 1")
    _check_names(header, where)
    return header


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
