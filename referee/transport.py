"""The referee's only gRPC code: a client for one bot, with plain Python values in and
out (docs/protocol.md).

Concurrency choice: grpc.aio runs its own asyncio loop and cannot share trio's, so we
use the synchronous channel's *futures* (``stub.Act.future``). grpc completes them on
its own completion-queue thread, which already exists for the channel, so there is no
thread per call: the done-callback hands the wake-up to trio with
``TrioToken.run_sync_soon``. When trio cancels the waiting task (a cancel scope
expiring, the match nursery shutting down) we cancel the gRPC call too.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import trio

from bots.sdk import Finish, GameStart, Reply
from engine import canonical_json
from niwa.v1 import bot_pb2, bot_pb2_grpc
from referee.failures import BotFailure, Failure
from referee.players import Question

T = TypeVar("T")


@dataclass(frozen=True)
class CallError(Exception):
    """A failed call as gRPC reported it, before the process player classifies it."""

    code: grpc.StatusCode
    details: str


async def _await(future: grpc.Future[Any]) -> Any:
    """Wait for a gRPC future without blocking trio; cancel the call if we are cancelled."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_: grpc.Future[Any]) -> None:
        # If the match is already gone, nobody waits any more.
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    try:
        await done.wait()
    except BaseException:
        future.cancel()
        raise
    try:
        return future.result()
    except grpc.RpcError as e:
        code: grpc.StatusCode = e.code()
        details: str = e.details() or ""
        raise CallError(code, details) from None


class BotClient:
    """A channel to one bot's Unix socket."""

    def __init__(self, socket_path: str, max_message_bytes: int) -> None:
        self._channel = grpc.insecure_channel(
            f"unix:{socket_path}",
            options=[
                ("grpc.max_receive_message_length", max_message_bytes),
                ("grpc.max_send_message_length", 64 << 20),
                ("grpc.enable_retries", 0),
            ],
        )
        self._stub = bot_pb2_grpc.BotStub(self._channel)  # type: ignore[no-untyped-call]

    async def _call(self, method: Any, request: Any, timeout_s: float) -> Any:
        return await _await(method.future(request, timeout=max(timeout_s, 0.001)))

    async def start(self, game: GameStart, timeout_s: float) -> tuple[str, str]:
        request = bot_pb2.StartRequest(
            game=game.game,
            version=game.version,
            seat=game.seat,
            players=game.players,
            options_json=canonical_json(game.options),
            time_control=bot_pb2.TimeControl(
                per_decision_ms=game.per_decision_ms, bank_ms=game.bank_ms
            ),
            seed=game.seed,
            match_id=game.match_id,
        )
        reply = await self._call(self._stub.Start, request, timeout_s)
        return reply.name, reply.version

    async def act(self, question: Question, timeout_s: float) -> Reply:
        request = bot_pb2.ActRequest(
            decision=question.decision,
            seat=question.seat,
            observation_json=canonical_json(question.observation),
            legal_actions_json=[canonical_json(a) for a in question.legal_actions],
            clock=bot_pb2.Clock(
                time_left_ms=question.time_left_ms,
                per_decision_ms=question.per_decision_ms,
                bank_ms=question.bank_ms,
            ),
        )
        return reply_from_proto(await self._call(self._stub.Act, request, timeout_s))

    async def finish(self, result: Finish, timeout_s: float) -> None:
        request = bot_pb2.FinishRequest(
            scores=result.scores, places=result.places, seat=result.seat
        )
        await self._call(self._stub.Finish, request, timeout_s)

    def close(self) -> None:
        self._channel.close()


def reply_from_proto(reply: Any) -> Reply:
    """An ``ActReply`` as a :class:`Reply`; ILLEGAL if it names nothing or bad JSON."""
    note = reply.note
    which = reply.WhichOneof("choice")
    if which == "index":
        return Reply(index=reply.index, note=note)
    if which == "action_json":
        try:
            return Reply(action=json.loads(reply.action_json), note=note)
        except json.JSONDecodeError:
            raise BotFailure(
                Failure.ILLEGAL, f"action_json is not JSON: {reply.action_json[:80]!r}"
            ) from None
    raise BotFailure(Failure.ILLEGAL, "the answer sets neither index nor action_json")
