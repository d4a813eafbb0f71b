"""How the referee talks to a seat: the :class:`Player` protocol and the in-process
player for trusted built-in bots.

The match loop sees only this protocol, so a bot in a sandboxed process
(:mod:`niwa.referee.process_player`) and a bot object in this process are interchangeable.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Protocol

from niwa.bots.sdk import Finish, GameStart, Reply, Turn, _past_observation, as_reply
from niwa.engine import State, canonical_json
from niwa.referee.failures import BotFailure, Failure


class Question(Turn):
    """One ``Act`` call, as the referee asks it: the SDK's :class:`niwa.bots.sdk.Turn`, so an
    in-process bot gets the very object the referee built. Made by
    :func:`make_question` from the state it is asked in, it also spells its observation
    as wire text without building it (a bot process is sent only the text:
    :meth:`engine.State.observe_json`)."""

    __slots__ = ("_state",)

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._state: State | None = None

    def observation_json(self) -> str:
        """The observation's canonical JSON (what a bot process is sent)."""
        if self._observation is None and self._state is not None:
            return self._state.observe_json(self.seat)
        return canonical_json(self.observation)

    @property
    def state(self) -> State | None:
        """The state it is asked in, until sealed (a human seat's page describes its
        moves from it)."""
        return self._state

    def seal(self) -> None:
        # Turn.seal spelled here: a question is sealed once or twice a decision.
        if self._observation is None:
            self._observe = _past_observation
        self._state = None


def make_question(
    decision: int, seat: int, state: State, time_left_ms: int, per_decision_ms: int, seed: int
) -> Question:
    """What ``seat`` is asked at step ``decision``: built here only, so the match and
    ``niwa replay ask`` (which re-asks from the replay) send the same question.

    The observation is built when first read (an in-process bot that never looks never
    pays), or spelled as text straight from the state for a bot process. ``state`` must
    not change before then: the referee applies the step only after every seat has
    answered."""
    # Filled in without Turn.__init__ (its arguments checked, passed on by keyword):
    # the referee makes one or more a decision; equal to
    # Question(decision, seat, None, legal, time_left_ms, seed, per_decision_ms,
    # bank, observe=functools.partial(state.observe, seat)).
    question = _new_question(Question)
    question.decision = decision
    question.seat = seat
    question._observation = None
    question._observe = functools.partial(state.observe, seat)
    question.legal_actions = state.legal_actions(seat)
    question.time_left_ms = time_left_ms
    question.seed = seed
    question.per_decision_ms = per_decision_ms
    question.bank_ms = max(0, time_left_ms - per_decision_ms)
    question._state = state
    return question


_new_question = object.__new__


class Player(Protocol):
    """One seat's bot, as the match loop sees it. Methods raise :class:`BotFailure`."""

    name: str
    version: str

    async def start(self, game: GameStart, timeout_s: float) -> None: ...

    async def act(self, question: Question, timeout_s: float) -> Reply: ...

    async def finish(self, result: Finish, timeout_s: float) -> None: ...

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the bot (its process tree), if measurable."""

    @property
    def charges_cpu(self) -> bool:
        """Whether :meth:`cpu_seconds` accounts for everything the bot runs, so its
        decisions may be charged CPU time instead of wall time."""

    def stderr_tail(self) -> list[str]: ...

    async def close(self) -> None:
        """Stop the bot and release everything it holds; safe to call twice."""


class InProcessPlayer:
    """A trusted bot object called directly (built-in bots with ``--in-process``).

    Its ``act`` runs in the referee's thread, so it cannot be interrupted: a slow
    answer is still classified TIMEOUT afterwards by the clock. It is charged wall
    time (``charges_cpu`` is False): it shares the referee's process."""

    charges_cpu = False

    def __init__(self, bot: Any, name: str, version: str) -> None:
        self.bot = bot
        self.name = name
        self.version = version
        self._cpu = 0.0
        #: A bot may keep a Turn and read its observation later (when the state has
        #: moved on): unless it says it does not, one it did not read is built as it
        #: answers (niwa.bots.sdk.Turn.seal).
        self._keeps_turns = bool(getattr(bot, "keeps_turns", True))

    async def start(self, game: GameStart, timeout_s: float) -> None:
        hook = getattr(self.bot, "start", None)
        if hook is not None:
            self._call(hook, game)

    async def act(self, question: Question, timeout_s: float) -> Reply:
        # _call spelled here: it runs once or more a decision.
        cpu0 = time.thread_time()
        try:
            answer = self.bot.act(question)
        except Exception as e:
            raise BotFailure(Failure.CRASHED, f"{type(e).__name__}: {e}") from None
        finally:
            self._cpu += time.thread_time() - cpu0
            if self._keeps_turns:
                question.observation  # noqa: B018  # built now, from the state it was asked in
            question.seal()
        try:
            return as_reply(answer)
        except (TypeError, ValueError) as e:
            raise BotFailure(Failure.ILLEGAL, str(e)) from None

    async def finish(self, result: Finish, timeout_s: float) -> None:
        hook = getattr(self.bot, "finish", None)
        if hook is not None:
            self._call(hook, result)

    def _call(self, fn: Any, arg: Any) -> Any:
        cpu0 = time.thread_time()
        try:
            return fn(arg)
        except Exception as e:
            raise BotFailure(Failure.CRASHED, f"{type(e).__name__}: {e}") from None
        finally:
            self._cpu += time.thread_time() - cpu0

    def cpu_seconds(self) -> float | None:
        return self._cpu

    def stderr_tail(self) -> list[str]:
        return []

    async def close(self) -> None:
        return None
