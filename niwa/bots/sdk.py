"""The bot SDK: write a bot as a small class, serve it with one call.

>>> from niwa.bots.sdk import Turn, serve
>>> class First:
...     def act(self, turn: Turn) -> int:
...         return 0                    # an index into turn.legal_actions
>>> serve(First())                      # doctest: +SKIP

``act`` returns an index into ``turn.legal_actions``, or a :class:`Reply` carrying an
index or the action itself plus an optional note (shown in replays), optional debug
text (kept in the replay, shown by ``niwa replay show`` and ``niwa play --debug``) and
optional :class:`Thinking` (a share per legal action, a value per seat, a principal
variation: drawn by the viewer). Debug and thinking are private to the bot's owner on a
ladder. A bot may also define ``start(game: GameStart)`` and ``finish(result: Finish)``.

:func:`serve` listens on the Unix socket named by ``NIWA_SOCKET`` (the referee sets it),
prints ``READY`` on stdout once it listens, and answers until it is stopped. The wire
protocol is described in docs/protocol.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

# Plain aliases rather than engine's, so serving a bot does not import the engine
# (start-up time counts against the bot).
JSON = Any
Action = Any

#: Environment variable naming the Unix socket a bot listens on.
SOCKET_ENV = "NIWA_SOCKET"
#: The line a bot prints on stdout once it listens.
READY_LINE = "READY"
#: Notes longer than this are cut by the referee.
NOTE_LIMIT = 200
#: Bytes (UTF-8) of debug text kept per decision; longer text is cut, with a marker.
DEBUG_LIMIT = 2048
#: Actions of a thinking's principal variation kept, and bytes of their JSON in all.
PV_LIMIT = 16
PV_BYTES = 2048
#: How far over 1 a thinking's shares may add up (rounding).
SHARES_SLACK = 1e-6
#: Characters of an exception's line sent to the referee (the gRPC status message is a
#: header: a megabyte of message would break the call instead of reporting it).
ERROR_LIMIT = 200


def cut_debug(text: str, limit: int = DEBUG_LIMIT) -> str:
    """``text`` within ``limit`` bytes of UTF-8: longer text is cut (never inside a
    character) and ends with a marker saying how long it was. Not an error: debug
    output is the bot's own business, bounded so a replay stays small."""
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return data.decode("utf-8")  # lone surrogates (no UTF-8) became "?"
    marker = f" [debug cut at {limit} bytes: {len(data)} sent]"
    keep = data[: limit - len(marker.encode())].decode("utf-8", "ignore")
    return keep + marker


def exception_line(error: BaseException, limit: int = ERROR_LIMIT) -> str:
    """``ValueError: bad index``: the exception's type and message on one line, cut
    to ``limit`` characters (the whole traceback goes to stderr)."""
    message = " ".join(str(error).split())
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class GameStart:
    """What a bot learns when the match starts (the ``Start`` call)."""

    game: str
    version: str
    seat: int
    players: int
    options: dict[str, JSON]
    per_decision_ms: int
    bank_ms: int
    seed: int
    match_id: str = ""


_MASK64 = (1 << 64) - 1


class DecisionRandom(random.Random):
    """A :class:`random.Random` (every method: ``randrange``, ``choice``, ``shuffle``,
    ...) drawing from a SplitMix64 stream fixed by two integers. Creating one costs
    about a microsecond, where seeding the Mersenne Twister costs five or more: bots
    make one per decision."""

    def __init__(self, seed: int, decision: int) -> None:  # no super(): skip MT seeding
        x = (seed * 0x9E3779B97F4A7C15 + decision * 0xD1B54A32D192ED03 + 1) & _MASK64
        self._x = x
        self.gauss_next = None

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Re-seed from an integer (0 if none): the stream of ``DecisionRandom(a, 0)``."""
        if a is not None and not isinstance(a, int):
            raise TypeError("DecisionRandom is seeded with an integer")
        self.__init__(0 if a is None else a, 0)  # type: ignore[misc]

    def _next(self) -> int:
        x = self._x = (self._x + 0x9E3779B97F4A7C15) & _MASK64
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
        return x ^ (x >> 31)

    def random(self) -> float:
        return (self._next() >> 11) * (1.0 / (1 << 53))

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        bits = 0
        got = 0
        while got < k:
            bits = (bits << 64) | self._next()
            got += 64
        return bits >> (got - k)

    def getstate(self) -> Any:
        return (self._x, self.gauss_next)

    def setstate(self, state: Any) -> None:
        self._x, self.gauss_next = state


def _past_observation() -> dict[str, JSON]:
    raise RuntimeError(
        "turn.observation read after the bot answered: the game has moved on; "
        "read (or copy) it inside act()"
    )


class Turn:
    """One question (the ``Act`` call): what ``seat`` plays at ``decision``, given what
    it sees. The referee asks with this same type (``niwa.referee.players.Question``), so
    what a bot is given and what the referee sent cannot drift apart.

    ``observation`` may be given as a function (``observe=``) that builds it: it is then
    built the first time a bot reads it, so a bot that never looks does not pay for it.
    A bot run in the referee's process that sets ``keeps_turns = False`` promises not to
    read a turn's observation after ``act`` returns (the state has moved on by then):
    it then never pays for one it did not read. Without it, the referee builds the
    observation as the bot answers, in case the bot kept the turn."""

    __slots__ = (
        "_observation", "_observe", "bank_ms", "decision", "legal_actions",
        "per_decision_ms", "seat", "seed", "time_left_ms",
    )

    def __init__(
        self,
        decision: int,
        seat: int,
        observation: dict[str, JSON] | None,
        legal_actions: list[Action],
        time_left_ms: int,
        seed: int = 0,  # the bot's seed from ``Start``
        per_decision_ms: int = 0,  # of time_left_ms, what does not draw on the bank
        bank_ms: int = 0,  # the bank left before this decision
        *,
        observe: Callable[[], dict[str, JSON]] | None = None,
    ) -> None:
        if (observation is None) == (observe is None):
            raise ValueError("a Turn has exactly one of observation= or observe=")
        self.decision = decision
        self.seat = seat
        self._observation = observation
        self._observe = observe
        self.legal_actions = legal_actions
        self.time_left_ms = time_left_ms
        self.seed = seed
        self.per_decision_ms = per_decision_ms
        self.bank_ms = bank_ms

    @property
    def observation(self) -> dict[str, JSON]:
        if self._observation is None:
            assert self._observe is not None
            self._observation = self._observe()
            self._observe = None
        return self._observation

    def seal(self) -> None:
        """The question was answered: an observation not built by now never is, since
        the state it would be built from moves on (reading it later is an error)."""
        if self._observation is None:
            self._observe = _past_observation

    def _key(self) -> tuple[Any, ...]:
        return (self.decision, self.seat, self.observation, self.legal_actions,
                self.time_left_ms, self.seed, self.per_decision_ms, self.bank_ms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like the dataclass

    def __repr__(self) -> str:
        return (
            f"Turn(decision={self.decision}, seat={self.seat}, "
            f"observation={self.observation!r}, legal_actions={self.legal_actions!r}, "
            f"time_left_ms={self.time_left_ms}, seed={self.seed}, "
            f"per_decision_ms={self.per_decision_ms}, bank_ms={self.bank_ms})"
        )

    def rng(self) -> random.Random:
        """A generator fixed by the bot's seed and the decision index, so asking the
        same question again (``niwa replay ask``) gives the same answer."""
        return DecisionRandom(self.seed, self.decision)


_NO_ACTION: Any = object()


@dataclass(frozen=True)
class Thinking:
    """What a bot thought of one decision, for the viewer (never rated).

    ``shares``: empty, or one number in [0, 1] per legal action in the order of
    ``turn.legal_actions`` (a probability or visit share), adding up to at most 1.
    ``values``: empty, or one value estimate per seat in seat order, each the expected
    result in [0, 1] (1 = first place, 0 = last). ``pv``: the line of play expected
    from here, as actions (the first one this decision's); at most PV_LIMIT actions and
    PV_BYTES bytes of JSON are kept. A thinking that breaks these rules is dropped by
    the referee and the move's debug text says why: the decision itself stands."""

    shares: tuple[float, ...] | list[float] = ()
    values: tuple[float, ...] | list[float] = ()
    pv: tuple[Action, ...] | list[Action] = ()


@dataclass(frozen=True)
class Reply:
    """An answer: ``index`` into the legal actions, or ``action`` itself, a short note
    (at most NOTE_LIMIT characters are kept), debug text (at most DEBUG_LIMIT bytes
    are kept; longer is cut with a marker) and :class:`Thinking`."""

    index: int | None = None
    action: Action = field(default=_NO_ACTION)
    note: str = ""
    debug: str = ""
    thinking: Thinking | None = None

    def __post_init__(self) -> None:
        if (self.index is None) == (self.action is _NO_ACTION):
            raise ValueError("a Reply carries exactly one of index= or action=")

    @property
    def has_action(self) -> bool:
        return self.action is not _NO_ACTION


@dataclass(frozen=True)
class Finish:
    """The end of the match as the referee saw it (the ``Finish`` call)."""

    scores: list[float]
    places: list[int]
    seat: int


class Bot(Protocol):
    """What the SDK needs of a bot; ``start`` and ``finish`` are optional."""

    def act(self, turn: Turn) -> int | Reply: ...


#: Replies of bare indexes, made once each (a Reply is immutable): most bots answer so.
_INDEX_REPLIES: dict[int, Reply] = {}
#: Indexes below this share their Reply; larger ones are made per answer.
_SHARED_INDEXES = 1024


def as_reply(answer: int | Reply) -> Reply:
    """Normalise what ``act`` returned (a bare int is an index)."""
    if type(answer) is int:
        reply = _INDEX_REPLIES.get(answer)
        if reply is None:
            reply = Reply(index=answer)
            if 0 <= answer < _SHARED_INDEXES:
                _INDEX_REPLIES[answer] = reply
        return reply
    if isinstance(answer, Reply):
        return answer
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise TypeError(f"act() must return an index or a Reply, not {type(answer).__name__}")
    return Reply(index=answer)


def serve(bot: Bot) -> None:
    """Serve ``bot`` on the socket named by ``NIWA_SOCKET``; print READY; block."""
    from niwa.bots.server import serve_forever  # grpc is only needed when serving

    serve_forever(bot)
