"""The bot SDK: write a bot as a small class, serve it with one call.

>>> from bots.sdk import Turn, serve
>>> class First:
...     def act(self, turn: Turn) -> int:
...         return 0                    # an index into turn.legal_actions
>>> serve(First())                      # doctest: +SKIP

``act`` returns an index into ``turn.legal_actions``, or a :class:`Reply` carrying an
index or the action itself plus an optional note (shown in replays) and optional debug
text (kept in the replay, shown by ``niwa replay show`` and ``niwa play --debug``). A bot may also
define ``start(game: GameStart)`` and ``finish(result: Finish)``.

:func:`serve` listens on the Unix socket named by ``NIWA_SOCKET`` (the referee sets it),
prints ``READY`` on stdout once it listens, and answers until it is stopped. The wire
protocol is described in docs/protocol.md.
"""

from __future__ import annotations

import random
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


@dataclass(frozen=True)
class Turn:
    """One question (the ``Act`` call): what ``seat`` plays at ``decision``, given what
    it sees. The referee asks with this same type (``referee.players.Question``), so
    what a bot is given and what the referee sent cannot drift apart."""

    decision: int
    seat: int
    observation: dict[str, JSON]
    legal_actions: list[Action]
    time_left_ms: int
    seed: int = 0  # the bot's seed from ``Start``
    per_decision_ms: int = 0  # of time_left_ms, what does not draw on the bank
    bank_ms: int = 0  # the bank left before this decision

    def rng(self) -> random.Random:
        """A generator fixed by the bot's seed and the decision index, so asking the
        same question again (``niwa replay ask``) gives the same answer."""
        return random.Random(f"{self.seed}/{self.decision}")


_NO_ACTION: Any = object()


@dataclass(frozen=True)
class Reply:
    """An answer: ``index`` into the legal actions, or ``action`` itself, a short note
    (at most NOTE_LIMIT characters are kept) and debug text (at most DEBUG_LIMIT bytes
    are kept; longer is cut with a marker)."""

    index: int | None = None
    action: Action = field(default=_NO_ACTION)
    note: str = ""
    debug: str = ""

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


def as_reply(answer: int | Reply) -> Reply:
    """Normalise what ``act`` returned (a bare int is an index)."""
    if isinstance(answer, Reply):
        return answer
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise TypeError(f"act() must return an index or a Reply, not {type(answer).__name__}")
    return Reply(index=answer)


def serve(bot: Bot) -> None:
    """Serve ``bot`` on the socket named by ``NIWA_SOCKET``; print READY; block."""
    from bots.server import serve_forever  # grpc is only needed when serving

    serve_forever(bot)
