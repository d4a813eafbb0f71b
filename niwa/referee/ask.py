"""Re-ask a bot the question it was asked at one step of a replay (``niwa replay ask``).

The match is re-simulated up to the step; the bot gets the same ``Start`` (same seat,
options and bot seed) and the same ``Act`` (observation, legal actions, clock), so a
deterministic bot gives the answer it gave in the match.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from niwa.bots.sdk import Reply
from niwa.engine import Action, Game
from niwa.referee.clock import GRACE_S
from niwa.referee.failures import BotFailure, Failure
from niwa.referee.match import (
    BotLimits,
    BotSpec,
    MatchSpec,
    TimeControl,
    game_start,
    make_player,
    resolve_reply,
)
from niwa.referee.players import Question, make_question
from niwa.referee.replay import Move, Replay, ReplayError, states


@dataclass(frozen=True)
class AskResult:
    question: Question
    recorded: Move
    reply: Reply | None  # None when the bot failed
    action: Action | None  # the legal action the reply names, if any
    failure: BotFailure | None
    #: The last lines the bot wrote on stderr (a traceback, when it raised).
    stderr_tail: tuple[str, ...] = ()

    @property
    def same(self) -> bool:
        return self.failure is None and self.action == self.recorded.action


def question_at(
    replay: Replay, at: int, seat: int | None, game: Game | None = None
) -> tuple[Question, Move]:
    """The question seat ``seat`` was asked at step ``at``, and what was recorded."""
    if not 0 <= at < len(replay.steps):
        raise ReplayError(f"no step {at}: the replay has steps 0 to {len(replay.steps) - 1}")
    step = replay.steps[at]
    if step.kind != "decision":
        raise ReplayError(f"step {at} is a chance outcome, not a decision: pick another step")
    seats = [m.seat for m in step.moves]
    if seat is None:
        if len(seats) > 1:
            raise ReplayError(f"step {at} is simultaneous (seats {seats}): pick one with --seat")
        seat = seats[0]
    if seat not in seats:
        raise ReplayError(f"seat {seat} does not decide at step {at} (seats {seats} do)")
    before = next(b for s, b, _ in states(replay, game) if s.index == at)
    recorded = next(m for m in step.moves if m.seat == seat)
    per_decision_ms = replay.header.time_control["per_decision_ms"]
    time_left = recorded.clock_ms if recorded.clock_ms is not None else per_decision_ms
    seed = game_start(replay.header, seat).seed
    return make_question(at, seat, before, time_left, per_decision_ms, seed), recorded


async def ask_again(
    replay: Replay,
    at: int,
    bot: BotSpec,
    seat: int | None = None,
    sandbox: bool = True,
    in_process: bool = False,
    limits: BotLimits | None = None,
) -> AskResult:
    question, recorded = question_at(replay, at, seat)
    h = replay.header
    spec = MatchSpec(
        game=h.game,
        bots=[bot],
        options=h.options,
        seed=h.seed,
        time_control=TimeControl(**h.time_control),
        sandbox=sandbox,
        in_process=in_process,
        limits=limits or BotLimits(),
    )
    start = game_start(h, question.seat)
    reply = action = failure = None
    async with trio.open_nursery() as nursery:
        player = make_player(spec, bot, question.seat, f"ask-{h.match_id}", nursery)
        try:
            await player.start(start, spec.startup_timeout_s)
            with trio.move_on_after(question.time_left_ms / 1000 + GRACE_S):
                reply = await player.act(question, question.time_left_ms / 1000)
            if reply is None:
                raise BotFailure(
                    Failure.TIMEOUT, f"no answer within {question.time_left_ms} ms"
                )
            action = resolve_reply(reply, question.legal_actions)
        except BotFailure as f:
            failure = f
        finally:
            await player.close()  # reaped: its stderr is all read
    return AskResult(
        question, recorded, reply, action, failure, tuple(player.stderr_tail())
    )


def ask_again_sync(replay: Replay, at: int, bot: BotSpec, **kw: object) -> AskResult:
    return trio.run(lambda: ask_again(replay, at, bot, **kw))  # type: ignore[arg-type]
