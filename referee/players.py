"""How the referee talks to a seat: the :class:`Player` protocol and the in-process
player for trusted built-in bots.

The match loop sees only this protocol, so a bot in a sandboxed process
(:mod:`referee.process_player`) and a bot object in this process are interchangeable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from bots.sdk import Finish, GameStart, Reply, Turn, as_reply
from engine import JSON, Action
from referee.failures import BotFailure, Failure


@dataclass(frozen=True)
class Question:
    """One ``Act`` call: what the seat sees and may do at step ``decision``."""

    decision: int
    seat: int
    observation: dict[str, JSON]
    legal_actions: list[Action]
    time_left_ms: int
    per_decision_ms: int = 0
    bank_ms: int = 0


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
        self._seed = 0
        self._cpu = 0.0

    async def start(self, game: GameStart, timeout_s: float) -> None:
        self._seed = game.seed
        hook = getattr(self.bot, "start", None)
        if hook is not None:
            self._call(hook, game)

    async def act(self, question: Question, timeout_s: float) -> Reply:
        turn = Turn(
            decision=question.decision,
            seat=question.seat,
            observation=question.observation,
            legal_actions=question.legal_actions,
            time_left_ms=question.time_left_ms,
            seed=self._seed,
        )
        answer = self._call(self.bot.act, turn)
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
