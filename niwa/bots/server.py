"""The gRPC side of the SDK: serves one bot object as the ``niwa.v1.Bot`` service."""

from __future__ import annotations

import functools
import gc
import json
import os
import signal
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn

import grpc

from niwa.bots.sdk import (
    READY_LINE,
    SOCKET_ENV,
    Bot,
    Finish,
    GameStart,
    Turn,
    as_reply,
    exception_line,
)
from niwa.proto.v1 import bot_pb2, bot_pb2_grpc


def _json_list(texts: Any) -> list[Any]:
    """Values each written as one JSON text, decoded in a single parse: a question's
    legal actions, decoded one by one, cost the bot three times as much."""
    values: list[Any] = json.loads("[" + ",".join(texts) + "]")
    return values


class _Servicer(bot_pb2_grpc.BotServicer):
    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seed = 0

    def Start(self, request: Any, context: grpc.ServicerContext) -> Any:
        tc = request.time_control
        game = GameStart(
            game=request.game,
            version=request.version,
            seat=request.seat,
            players=request.players,
            options=json.loads(request.options_json or "{}"),
            per_decision_ms=tc.per_decision_ms,
            bank_ms=tc.bank_ms,
            seed=request.seed,
            match_id=request.match_id,
        )
        self.seed = game.seed
        self._hook("start", game, context)
        return bot_pb2.StartReply(
            name=str(getattr(self.bot, "name", type(self.bot).__name__)),
            version=str(getattr(self.bot, "version", "")),
        )

    def Act(self, request: Any, context: grpc.ServicerContext) -> Any:
        turn = Turn(
            decision=request.decision,
            seat=request.seat,
            observation=None,  # parsed when the bot first reads it: not all bots do
            legal_actions=_json_list(request.legal_actions_json),
            time_left_ms=request.clock.time_left_ms,
            seed=self.seed,
            per_decision_ms=request.clock.per_decision_ms,
            bank_ms=request.clock.bank_ms,
            observe=functools.partial(json.loads, request.observation_json),
        )
        try:
            reply = as_reply(self.bot.act(turn))
        except Exception as e:
            _raised(e, context)
        if reply.has_action:
            text = json.dumps(reply.action, sort_keys=True, separators=(",", ":"))
            return bot_pb2.ActReply(action_json=text, note=reply.note, debug=reply.debug)
        return bot_pb2.ActReply(index=reply.index, note=reply.note, debug=reply.debug)

    def Finish(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._hook(
            "finish", Finish(list(request.scores), list(request.places), request.seat), context
        )
        return bot_pb2.FinishReply()

    def _hook(self, name: str, arg: Any, context: grpc.ServicerContext) -> None:
        hook = getattr(self.bot, name, None)
        if hook is None:
            return
        try:
            hook(arg)
        except Exception as e:
            _raised(e, context)


def _raised(error: Exception, context: grpc.ServicerContext) -> NoReturn:
    """The bot's code raised: its traceback to stderr (the referee keeps the tail), and
    status UNKNOWN with the exception's one line, which is what a gRPC server in any
    language sends when a handler throws: the referee counts it as a crash
    (docs/protocol.md, "Failures")."""
    traceback.print_exc(file=sys.stderr)
    context.abort(grpc.StatusCode.UNKNOWN, exception_line(error))
    raise AssertionError("unreachable: abort raises")  # for readers and type checkers


def announce_ready() -> None:
    """Tell the referee the bot serves: ``READY`` and its newline in one write. Under
    PYTHONUNBUFFERED (the referee sets it) ``print`` writes the text and the newline
    apart, and a line from another thread of the bot could land between them and hide
    READY (the referee then waits out its start-up limit)."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), f"{READY_LINE}\n".encode())


def serve_forever(bot: Bot) -> None:
    path = os.environ.get(SOCKET_ENV)
    if not path:
        sys.exit(f"{SOCKET_ENV} is not set: bots are started by the referee (niwa play)")
    # Two workers: one may still be busy with a question the referee gave up on.
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServicer_to_server(_Servicer(bot), server)  # type: ignore[no-untyped-call]
    server.add_insecure_port(f"unix:{path}")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    # Everything imported so far lives as long as the bot: out of the collector's way,
    # a full collection during a match walks only what the bot made since.
    gc.freeze()
    announce_ready()
    server.wait_for_termination()
