"""A person at the table: :class:`HumanPlayer`, one more kind of :class:`Player`, and
the :class:`Desk` it shares with the page the person plays on.

The referee sees only the protocol: it asks the seat the same :class:`Question` as a
bot, under the seat's own clock, and classifies what goes wrong the same way (no answer
in time is TIMEOUT; no page open for :attr:`Desk.grace_s` while a question waits is
DISCONNECTED, which puts the seat out). The web side (``niwa.web.human``) reads the
desk's :meth:`Desk.snapshot` and hands answers to :meth:`Desk.answer`; nothing here
knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio

from niwa.bots.sdk import Finish, GameStart, Reply
from niwa.engine import JSON, Action, BoardParts, Game, State, describe_move
from niwa.errors import RefereeError
from niwa.referee.failures import BotFailure, Failure
from niwa.referee.players import Question

#: Seconds with no page open, while the seat is asked to move, before it is DISCONNECTED.
GRACE_S = 30.0
#: The version a human seat's replay line carries (``SeatInfo.version``).
HUMAN_VERSION = "human"


class AnswerRefused(RefereeError):
    """An answer from the page that does not answer the question waiting (stale,
    repeated, out of range, or after the seat's match ended)."""


@dataclass(frozen=True)
class Choice:
    """One legal action as the page shows it: its index, its words, its board parts."""

    index: int
    text: str
    parts: tuple[str, ...]

    def to_json(self) -> dict[str, JSON]:
        return {"index": self.index, "text": self.text, "parts": list(self.parts)}


@dataclass(frozen=True)
class Asked:
    decision: int
    choices: tuple[Choice, ...]
    time_left_ms: int


class Desk:
    """What one human seat's referee side and its page share; trio only (the page's
    server runs in the match's trio run). Every change bumps :attr:`version`, which the
    page's event stream waits on."""

    def __init__(self, seat: int, grace_s: float = GRACE_S) -> None:
        self.seat = seat
        self.grace_s = grace_s
        self.version = 0
        self.view: dict[str, JSON] | None = None
        self.asked: Asked | None = None
        self.result: dict[str, JSON] | None = None
        self.note = ""  # what last happened to the seat, in words
        self.closed = False
        self.pages = 0
        self._left_at: float | None = None  # when the last open page went away
        self._answer: int | None = None
        self._changed = trio.Event()

    # -- the page's side --------------------------------------------------------

    def snapshot(self) -> dict[str, JSON]:
        """Everything the page is sent: only this seat's observation and its own legal
        moves (in words, with their board parts), never another seat's."""
        asked = self.asked if self._answer is None else None  # answered: nothing to ask
        return {
            "seat": self.seat,
            "version": self.version,
            "view": self.view,
            "question": None if asked is None else {
                "decision": asked.decision,
                "time_left_ms": asked.time_left_ms,
                "moves": [c.to_json() for c in asked.choices],
            },
            "result": self.result,
            "note": self.note,
            "closed": self.closed,
        }  # fmt: skip

    async def changed_since(self, version: int) -> None:
        """Return once :attr:`version` is past ``version``."""
        while self.version <= version:
            await self._changed.wait()

    def connect(self) -> None:
        self.pages += 1
        self._left_at = None
        self._bump()

    def disconnect(self) -> None:
        self.pages = max(0, self.pages - 1)
        if self.pages == 0:
            self._left_at = trio.current_time()
        self._bump()

    def answer(self, decision: int, index: int) -> None:
        """Take the page's choice; :class:`AnswerRefused` (saying why) if it answers no
        question waiting now."""
        asked = self.asked
        if self.closed:
            raise AnswerRefused("this seat's match is over: no move can be played")
        if asked is None or asked.decision != decision or self._answer is not None:
            raise AnswerRefused(
                f"step {decision} is not waiting for a move (already answered, or stale): "
                "the page shows the current question once it reloads"
            )
        if not 0 <= index < len(asked.choices):
            raise AnswerRefused(
                f"move {index} is not one of the {len(asked.choices)} legal moves"
            )
        self._answer = index
        self._bump()

    # -- the referee's side -----------------------------------------------------

    def show(self, view: dict[str, JSON]) -> None:
        """The seat's observation now (after each step, and at the end)."""
        self.view = view
        self._bump()

    async def ask(self, asked: Asked) -> int:
        """Wait for the page's choice; BotFailure DISCONNECTED when no page has been open
        for :attr:`grace_s` while waiting (before a first page opens, only the clock
        bounds the wait: the caller's cancel scope)."""
        self.asked, self._answer, self.note = asked, None, ""
        started = trio.current_time()
        self._bump()
        try:
            while self._answer is None:
                gone = self._left_at if self.pages == 0 else None
                deadline = float("inf") if gone is None else max(gone, started) + self.grace_s
                if trio.current_time() >= deadline:
                    raise BotFailure(
                        Failure.DISCONNECTED,
                        f"no page open for the human seat for {self.grace_s:g} s while "
                        "it was asked to move",
                    )
                with trio.move_on_at(deadline):
                    await self.changed_since(self.version)
            return self._answer
        finally:
            if self._answer is None:
                self.note = "no move in time: the referee played a default move"
            self.asked = None
            self._bump()

    def end(self, result: dict[str, JSON] | None, note: str = "") -> None:
        self.result = result
        if note:
            self.note = note
        self.closed = True
        self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()


class HumanPlayer:
    """A seat played by a person through a :class:`Desk`. Charged wall time: a person
    has no CPU time to measure."""

    charges_cpu = False

    def __init__(self, desk: Desk, game: Game, name: str) -> None:
        self.desk = desk
        self.name = name
        self.version = HUMAN_VERSION
        self.parts_of: BoardParts | None = game.board_parts()

    async def start(self, game: GameStart, timeout_s: float) -> None:
        return None

    async def act(self, question: Question, timeout_s: float) -> Reply:
        view = question.observation
        state = question.state
        assert state is not None, "a question is answered before it is sealed"
        legal = question.legal_actions
        asked = choices(state, question.seat, legal, view, self.parts_of)
        self.desk.show(view)
        index = await self.desk.ask(Asked(question.decision, asked, question.time_left_ms))
        return Reply(index=index)

    async def finish(self, result: Finish, timeout_s: float) -> None:
        self.desk.end({"scores": list(result.scores), "places": list(result.places)})

    def cpu_seconds(self) -> float | None:
        return None

    def stderr_tail(self) -> list[str]:
        return []

    async def close(self) -> None:
        if not self.desk.closed:  # put out, or the match stopped before its end
            self.desk.end(None, "the seat is out of the match: the referee plays for it")


def choices(
    state: State, seat: int, legal: list[Action], view: dict[str, JSON],
    parts_of: BoardParts | None,
) -> tuple[Choice, ...]:
    """The seat's legal moves as its page shows them: each in words and with the board
    parts it touches, all from what the seat may see (its observation ``view``, and
    the game's description of its own moves)."""
    parts = [_parts(parts_of, view, action) for action in legal]
    texts = [describe_move(state, seat, action) for action in legal]
    words = distinct(texts, parts)
    return tuple(Choice(i, words[i], parts[i]) for i in range(len(words)))


def _parts(parts_of: BoardParts | None, view: dict[str, JSON], action: Action) -> tuple[str, ...]:
    if parts_of is None:
        return ()
    try:
        return tuple(str(p) for p in parts_of(view, action))
    except Exception:  # parts only help a click: the move list still offers the move
        return ()


def distinct(texts: list[str], parts: list[tuple[str, ...]]) -> list[str]:
    """The moves' words, told apart where two read the same (a move described as the
    others see it, "feeds 2 cards face down", says which cards by its board parts)."""
    seen: dict[str, int] = {}
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
    out = []
    for i, (text, where) in enumerate(zip(texts, parts, strict=True)):
        if seen[text] > 1:
            named = ", ".join(p.replace(":", " ") for p in where)
            text = f"{text} ({named})" if named else f"{text} (choice {i + 1})"
        out.append(text)
    return out


def shows_views(
    desks: dict[int, Desk], first: Callable[[Any, Any, Any], None] | None = None
) -> Callable[[Any, Any, Any], None]:
    """A step observer that shows each human seat its observation after every step, so
    the page follows the others' moves and sees the final board (after calling
    ``first``, the match's own observer, if any)."""

    def observe(step: Any, before: Any, after: State) -> None:
        if first is not None:
            first(step, before, after)
        for seat, desk in desks.items():
            desk.show(after.observe(seat))

    return observe
