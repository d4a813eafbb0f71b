"""The referee's only gRPC code: a client for one bot, with plain Python values in and
out (docs/protocol.md).

Everything a bot sends is decoded here with bounded size and depth: a reply that
cannot be used is a :class:`BotFailure` (ILLEGAL) with a one-line detail, never an
exception out of the referee.

Concurrency choice: grpc.aio runs its own asyncio loop and cannot share trio's. Each
call is made as a *server-streaming* call on the wire-compatible unary method (gRPC
does not encode arity on the wire), and its replies are read in one of trio's worker
threads (at most one per seat at a time). Reading the stream is what lets the referee
see a second reply to a unary call at once: grpc's unary client leaves it unread and
the call stalls until its deadline. When trio cancels the waiting task (a cancel scope
expiring, the match nursery shutting down) we cancel the gRPC call, which ends the
worker's read.

What the thread costs (docs/benchmarks.md, "Sandboxed gRPC: the bridge"): the request
leaves on the calling thread when the call is made, so handing the read to the worker
overlaps the bot's own work; what a decision pays is the wake-up back into trio and
the stream's second read, together 50-100 µs. Measured and not better: a wake-up
through a socket trio waits on, the worker also making the call, grpc's channel
thread (multi-threaded rendezvous), grpc.aio on its own loop thread (1.6x the bare
stub, against 1.25x), channel options (BDP probe off, latency target).
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import trio

from bots.sdk import NOTE_LIMIT, Finish, GameStart, Reply, cut_debug
from engine import JSON, canonical_json
from niwa_proto.v1 import bot_pb2
from referee.failures import BotFailure, Failure, clip
from referee.players import Question

#: Longest ``action_json`` accepted, in characters (legal actions are tens of them).
MAX_ACTION_CHARS = 64 * 1024
#: Deepest nesting of arrays and objects accepted in ``action_json``.
MAX_ACTION_DEPTH = 64
#: Longest number (integer or float, sign and exponent included) in ``action_json``.
MAX_NUMBER_CHARS = 64

_METHOD = "/niwa.v1.Bot/"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class CallEnd(enum.Enum):
    """How a failed call ended, in the referee's terms: which gRPC statuses mean what
    is decided here, so the rest of the referee never sees grpc."""

    #: DEADLINE_EXCEEDED: the deadline passed (ours, unless the bot sent it early).
    DEADLINE = "deadline"
    #: RESOURCE_EXHAUSTED from our client: the reply was over the receive limit.
    TOO_LARGE = "too large"
    #: UNAVAILABLE or CANCELLED: the connection broke mid-call (often a dying process).
    BROKEN = "broken"
    #: Any other status.
    STATUS = "status"


class CallError(Exception):
    """A failed call, before the process player classifies it: how it ended, the gRPC
    status's name (for messages) and its details. (Not a frozen dataclass: raising it
    sets ``__traceback__``.)"""

    def __init__(self, end: CallEnd, status: str, details: str) -> None:
        super().__init__(f"{status}: {details}")
        self.end = end
        self.status = status
        self.details = details


_ENDS = {
    grpc.StatusCode.DEADLINE_EXCEEDED: CallEnd.DEADLINE,
    grpc.StatusCode.UNAVAILABLE: CallEnd.BROKEN,
    grpc.StatusCode.CANCELLED: CallEnd.BROKEN,
}


def call_error(code: grpc.StatusCode, details: str) -> CallError:
    """The neutral form of a gRPC status. grpc's own client says "Received message
    larger than max" when a reply passes the receive limit."""
    end = _ENDS.get(code, CallEnd.STATUS)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "received" in details.lower():
        end = CallEnd.TOO_LARGE
    return CallError(end, code.name, details)


@dataclass(frozen=True)
class _Malformed:
    """What the deserializer returns for bytes that are not the expected message."""

    why: str


class _End:
    """No more replies on the stream."""


_END = _End()


def _parser(message: Any) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return message.FromString(data)
        except Exception as e:  # upb raises DecodeError; anything else is just as bad
            return _Malformed(clip(f"{type(e).__name__}: {e}"))

    return parse


def _read_one(call: Any) -> Any:
    """In a worker thread: the single reply of a call read as a stream. A status is a
    :class:`CallError`; no reply, or a second one, is ILLEGAL."""
    try:
        first = next(call, _END)
        if first is _END:
            raise BotFailure(Failure.ILLEGAL, "the server ended the call without a reply")
        if next(call, _END) is not _END:
            call.cancel()
            raise BotFailure(Failure.ILLEGAL, "two replies to one call")
    except grpc.RpcError as e:
        code: grpc.StatusCode = e.code()
        details: str = e.details() or ""
        raise call_error(code, clip(details)) from None
    if isinstance(first, _Malformed):
        raise BotFailure(Failure.ILLEGAL, f"the reply is not a valid message ({first.why})")
    return first


async def _in_worker_thread(fn: Callable[[Any], Any], arg: Any) -> Any:
    """``fn(arg)`` in one of trio's cached worker threads; cancelling the wait abandons
    the thread (its result is dropped). ``trio.to_thread.run_sync`` does the same with
    more machinery (context copying, calls back into trio): about 45 µs more per call
    here, a twentieth of a whole decision."""
    task = trio.lowlevel.current_task()
    token = trio.lowlevel.current_trio_token()
    abandoned = False

    def back(result: Any) -> None:
        if not abandoned:
            trio.lowlevel.reschedule(task, result)

    def deliver(result: Any) -> None:  # in the worker thread: hand the outcome to trio
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(back, result)

    trio.lowlevel.start_thread_soon(lambda: fn(arg), deliver)

    def abort(_: Any) -> trio.lowlevel.Abort:
        nonlocal abandoned
        abandoned = True
        return trio.lowlevel.Abort.SUCCEEDED

    return await trio.lowlevel.wait_task_rescheduled(abort)


class BotClient:
    """A channel to one bot's Unix socket."""

    def __init__(self, socket_path: str, max_message_bytes: int) -> None:
        self._channel = grpc.insecure_channel(
            f"unix:{socket_path}",
            options=[
                ("grpc.max_receive_message_length", max_message_bytes),
                ("grpc.max_send_message_length", 64 << 20),
                ("grpc.enable_retries", 0),
                # The target is /proc/self/fd/N, and N is reused by the next bot: with
                # grpc's global pool a new channel could get the old bot's subchannel
                # (connected, or failed, to a socket that is gone).
                ("grpc.use_local_subchannel_pool", 1),
                # grpc.experimental.ChannelOptions.SingleThreadedUnaryStream: the stream
                # is read on the calling (worker) thread's own completion queue, not
                # handed to the channel's poller thread: as fast as a unary call.
                ("SingleThreadedUnaryStream", 1),
            ],
        )
        self._calls = {
            name: self._channel.unary_stream(
                _METHOD + name,
                request_serializer=request.SerializeToString,
                response_deserializer=_parser(reply),
            )
            for name, request, reply in (
                ("Start", bot_pb2.StartRequest, bot_pb2.StartReply),
                ("Act", bot_pb2.ActRequest, bot_pb2.ActReply),
                ("Finish", bot_pb2.FinishRequest, bot_pb2.FinishReply),
            )
        }

    async def _call(self, name: str, request: Any, timeout_s: float) -> Any:
        call: Any = self._calls[name](request, timeout=max(timeout_s, 0.001))
        try:
            return await _in_worker_thread(_read_one, call)
        except BaseException:
            call.cancel()
            raise

    def serving(self) -> bool | None:
        """Whether the channel is connected to a server right now (None: unknown).

        A status that arrives on a connected channel was sent by the bot's server;
        a dropped or refused connection leaves the channel not READY."""
        try:  # grpc has no public non-blocking getter; this is what it polls itself
            state = self._channel._channel.check_connectivity_state(False)  # type: ignore[attr-defined]
        except Exception:
            return None
        return bool(state == grpc.ChannelConnectivity.READY.value[0])

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
        reply = await self._call("Start", request, timeout_s)
        return clip(reply.name, 64), clip(reply.version, 64)

    def act_request(self, question: Question) -> Any:
        """The ``ActRequest`` for a question (referee data only: errors here are ours)."""
        return bot_pb2.ActRequest(
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

    async def act(self, question: Question, timeout_s: float, request: Any = None) -> Reply:
        if request is None:
            request = self.act_request(question)
        return reply_from_proto(await self._call("Act", request, timeout_s))

    async def finish(self, result: Finish, timeout_s: float) -> None:
        request = bot_pb2.FinishRequest(
            scores=result.scores, places=result.places, seat=result.seat
        )
        await self._call("Finish", request, timeout_s)

    def close(self) -> None:
        self._channel.close()


def reply_from_proto(reply: Any) -> Reply:
    """An ``ActReply`` as a :class:`Reply`; ILLEGAL if it names nothing usable."""
    note = clip(reply.note, NOTE_LIMIT)
    debug = cut_debug(reply.debug)
    which = reply.WhichOneof("choice")
    if which == "index":
        return Reply(index=reply.index, note=note, debug=debug)
    if which == "action_json":
        return Reply(action=decode_action_json(reply.action_json), note=note, debug=debug)
    raise BotFailure(Failure.ILLEGAL, "the answer sets neither index nor action_json")


def json_depth(text: str) -> int:
    """The deepest array/object nesting of JSON text, without recursion: strings are
    blanked out, then the brackets left are counted (in C, via accumulate)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _number(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    return text


def _int(text: str) -> int:
    return int(_number(text))


def _float(text: str) -> float:
    value = float(_number(text))
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is not finite")
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_action_json(text: str) -> JSON:
    """The action a bot wrote as JSON, decoded with bounded size, depth and numbers;
    anything else is ILLEGAL with a one-line detail."""
    if len(text) > MAX_ACTION_CHARS:
        raise BotFailure(
            Failure.ILLEGAL,
            f"action_json has {len(text)} characters (at most {MAX_ACTION_CHARS})",
        )
    depth = json_depth(text)
    if depth > MAX_ACTION_DEPTH:
        raise BotFailure(
            Failure.ILLEGAL, f"action_json nests {depth} deep (at most {MAX_ACTION_DEPTH})"
        )
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
        canonical_json(value).encode("utf-8")  # a lone surrogate (\ud800) has no UTF-8
    except json.JSONDecodeError as e:
        raise BotFailure(
            Failure.ILLEGAL, f"action_json is not JSON ({e.msg} at {e.pos}): {clip(text, 80)!r}"
        ) from None
    except (ValueError, UnicodeError, RecursionError) as e:
        raise BotFailure(Failure.ILLEGAL, f"action_json is refused: {clip(str(e))}") from None
    return value
