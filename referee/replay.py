"""Replay files: one JSON object per line (JSON Lines), documented in docs/protocol.md.

The first line is the header, then one line per step (a decision of one or more seats,
or a chance outcome) with the hash of the full state after it, and last the result::

    {"kind":"header","schema":"niwa-replay/1","game":"blossom","version":"blossom@1",...}
    {"kind":"chance","index":0,"moves":[{"seat":-1,"action":...}],"hash":"3f0c..."}
    {"kind":"decision","index":1,"moves":[{"seat":0,"action":...,"status":"OK",...}],...}
    {"kind":"result","scores":[...],"places":[...],"seats":[{"seat":0,"status":"ok"},...]}

Because chance outcomes are recorded like moves, :func:`verify` re-simulates a file
with nothing but the engine and checks every hash. :func:`states` walks the match for
``niwa replay show`` and ``niwa replay ask``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Literal

import engine
from engine import CHANCE, JSON, Action, Game, State, canonical_json

SCHEMA = "niwa-replay/1"

StepKind = Literal["decision", "chance"]


class ReplayError(ValueError):
    """A replay file that cannot be read, or that does not re-simulate."""


@dataclass(frozen=True)
class SeatInfo:
    """Who sat where: the bot as given (``builtin:random`` or a directory), its
    manifest name and version."""

    seat: int
    bot: str
    name: str
    version: str


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

    def to_json(self) -> dict[str, JSON]:
        d = asdict(self)
        return {"kind": "header", **d}

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> Header:
        fields = {k: v for k, v in d.items() if k != "kind"}
        fields["seats"] = [SeatInfo(**s) for s in fields.get("seats", [])]
        return cls(**fields)


@dataclass(frozen=True)
class Move:
    """One seat's part of a step. For chance, ``seat`` is -1 and only ``action`` is set.

    ``status`` is OK, or the failure (TIMEOUT, ILLEGAL, CRASHED, DISCONNECTED) that
    made the referee play a default move, or OUT when the seat was already out.
    ``clock_ms`` is the time the seat had for this decision (what ``Act`` was told).
    """

    seat: int
    action: Action
    status: str = "OK"
    wall_ms: float | None = None
    cpu_ms: float | None = None
    clock_ms: int | None = None
    note: str = ""
    detail: str = ""

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
        return d


@dataclass(frozen=True)
class Step:
    index: int
    kind: StepKind
    moves: list[Move]
    hash: str

    def joint(self) -> dict[int, Action]:
        return {m.seat: m.action for m in self.moves}

    def to_json(self) -> dict[str, JSON]:
        return {
            "kind": self.kind,
            "index": self.index,
            "moves": [m.to_json() for m in self.moves],
            "hash": self.hash,
        }

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> Step:
        return cls(
            index=d["index"],
            kind=d["kind"],
            moves=[Move(**m) for m in d["moves"]],
            hash=d["hash"],
        )


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
        d = asdict(self)
        d["wall_ms"] = round(self.wall_ms, 3)
        return {"kind": "result", **d}

    @classmethod
    def from_json(cls, d: dict[str, JSON]) -> ResultLine:
        fields = {k: v for k, v in d.items() if k != "kind"}
        fields["seats"] = [SeatOutcome(**s) for s in fields["seats"]]
        return cls(**fields)


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
    """Writes a replay line by line, flushing each, so a crashed match leaves a
    readable prefix."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[str] = self.path.open("w", encoding="utf-8")

    def _line(self, obj: dict[str, JSON]) -> None:
        self._file.write(canonical_json(obj) + "\n")
        self._file.flush()

    def header(self, header: Header) -> None:
        self._line(header.to_json())

    def step(self, step: Step) -> None:
        self._line(step.to_json())

    def result(self, result: ResultLine) -> None:
        self._line(result.to_json())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def read(path: str | Path) -> Replay:
    """Parse a replay file; a missing result line is allowed (an interrupted match)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ReplayError(f"cannot read replay {path}: {e.strerror}") from None
    header: Header | None = None
    steps: list[Step] = []
    result: ResultLine | None = None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            d: dict[str, Any] = json.loads(text)
            kind = d.get("kind")
            if number == 1:
                if kind != "header" or d.get("schema") != SCHEMA:
                    raise ReplayError(
                        f"{path}: not a {SCHEMA} replay (line 1 must be its header)"
                    )
                header = Header.from_json(d)
            elif kind in ("decision", "chance"):
                steps.append(Step.from_json(d))
            elif kind == "result":
                result = ResultLine.from_json(d)
            else:
                raise ReplayError(f"{path}:{number}: unknown line kind {kind!r}")
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ReplayError(f"{path}:{number}: malformed replay line ({e})") from None
    if header is None:
        raise ReplayError(f"{path}: empty replay file")
    return Replay(header, steps, result)


def states(replay: Replay, game: Game | None = None) -> Iterator[tuple[Step, State, State]]:
    """Re-simulate: yield (step, state before it, state after it) for every step.

    ``game`` defaults to the registered game the header names. The state after is the
    live object; clone it to keep it."""
    game = game or replay.game()
    state = game.new_game(replay.header.players, replay.header.options)
    for step in replay.steps:
        before = state.clone()
        try:
            state.apply(step.joint())
        except engine.IllegalAction as e:
            raise ReplayError(f"step {step.index}: the recorded move is illegal: {e}") from None
        yield step, before, state


def verify(replay: Replay, game: Game | None = None) -> int:
    """Re-simulate and check every hash, the step order and the final result.

    Returns the number of steps checked; raises :class:`ReplayError` on the first
    difference."""
    checked = 0
    last: State | None = None
    for step, _, after in states(replay, game):
        if step.index != checked:
            raise ReplayError(f"step {checked}: line has index {step.index}")
        got = engine.state_hash(after)
        if got != step.hash:
            raise ReplayError(
                f"step {step.index}: state hash {got} but the replay says {step.hash}"
            )
        checked += 1
        last = after
    if replay.result is not None:
        if last is None or not last.is_over():
            raise ReplayError("the replay has a result but its moves do not finish the game")
        result = last.result()
        if list(result.scores) != replay.result.scores:
            raise ReplayError(
                f"final scores {list(result.scores)} but the replay says {replay.result.scores}"
            )
        if list(result.places) != replay.result.game_places:
            raise ReplayError(
                f"final places {list(result.places)} but the replay says "
                f"{replay.result.game_places}"
            )
    return checked
