"""The referee's only gRPC code: a client for one bot, with plain Python values in and
out (docs/protocol.md).

Everything a bot sends is decoded here with bounded size and depth: a reply that
cannot be used is a :class:`BotFailure` (ILLEGAL) with a one-line detail, never an
exception out of the referee.

Concurrency choice: the calls are gRPC over HTTP/2 spoken by this module itself, with
the ``h2`` protocol library (sans-IO, like the engine) on one trio socket per bot. A
call is then an ordinary trio task: its deadline is a cancel scope, a cancelled call
leaves no thread or call object behind, and no reply crosses a thread. grpcio's
client could only be waited on from a thread of its own, and that hand-off cost a
decision more than the whole rest of the referee (docs/benchmarks.md, "Sandboxed gRPC
spoken on trio").

Every byte is counted before it is kept: a reply's length prefix is checked against
the receive limit before its body arrives, and a call reads at most
:data:`MAX_CALL_BYTES_OVER` more than that limit in all (frames, headers, pings), so a
flood costs the bot its answer, not the referee its memory. Bytes do not bound the
referee's CPU (a 9-byte frame costs as much to handle as a full one), so frames are
counted too, from their 9-byte headers before h2 parses them, along with h2's events
and the socket reads: per call (:data:`MAX_CALL_FRAMES`, ...) and per match (an
allowance that grows with each call, :data:`MATCH_FRAMES_BASE`). A call that does not end
cleanly (its deadline, a cancelled match, a broken or hostile stream) closes the
connection: the bot's server sees its call cancelled, and the next call connects anew.
"""

from __future__ import annotations

import contextlib
import enum
import math
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import grpc
import h2.errors
import h2.events
import h2.exceptions
import hpack
import trio

from niwa.bots.sdk import (
    NOTE_LIMIT,
    PV_LIMIT,
    Finish,
    GameStart,
    Reply,
    Thinking,
    Turn,
    cut_debug,
)
from niwa.engine import JSON, bounded_json, canonical_json
from niwa.engine.bounded_json import Bounds, UntrustedJsonError
from niwa.errors import RefereeError
from niwa.proto import http2
from niwa.proto.hpack_cache import ReplyDecoder, StaticEncoder
from niwa.proto.v1 import bot_pb2
from niwa.referee.failures import BotFailure, Failure, clip
from niwa.referee.players import Question
from niwa.referee.thinking import Unreadable

#: Longest ``action_json`` accepted, in characters (legal actions are tens of them).
MAX_ACTION_CHARS = 64 * 1024
#: Deepest nesting of arrays and objects accepted in ``action_json``.
MAX_ACTION_DEPTH = 64
#: Longest number (integer or float, sign and exponent included) in ``action_json``.
MAX_NUMBER_CHARS = 64
#: Bytes a call may read beyond its reply's limit: HTTP/2 framing, headers, trailers,
#: settings and pings. A well-behaved server needs a few hundred.
MAX_CALL_BYTES_OVER = 1 << 20
#: HTTP/2 frames a call may read, of any type (DATA, PING, SETTINGS, unknown types,
#: CONTINUATION...). An honest server sends about ten (docs/security.md, "Floods of
#: frames"); past this the call is refused before h2 parses the frames that went over.
MAX_CALL_FRAMES = 1000
#: h2 events a call may produce (a frame makes one to three).
MAX_CALL_EVENTS = 2000
#: Socket reads a call may make (a server writing a few bytes at a time wakes the
#: referee once per write).
MAX_CALL_READS = 1000
#: A match's allowance of frames (events and reads alike): this much at the start, and
#: :data:`MATCH_FRAMES_PER_CALL` more for each call made, so that a bot flooding just
#: under the per-call bound runs out within a few calls.
MATCH_FRAMES_BASE = 4000
MATCH_FRAMES_PER_CALL = 100
#: Largest header block accepted (gRPC's own default is 8 KiB).
MAX_HEADER_BYTES = 16 << 10
#: Bytes read from the socket at a time.
RECV_BYTES = 64 << 10

_METHOD = "/niwa.v1.Bot/"
_FRAME_HEADER = 9  # an HTTP/2 frame's: 3 bytes length, type, flags, 4 bytes stream
_PREFIX = 5  # a gRPC message: 1 byte compressed flag, 4 bytes big-endian length
_CODES = {code.value[0]: code for code in grpc.StatusCode}


class CallEnd(enum.Enum):
    """How a failed call ended, in the referee's terms: which gRPC statuses mean what
    is decided here, so the rest of the referee never sees grpc."""

    #: DEADLINE_EXCEEDED: the deadline passed (ours, unless the bot sent it early).
    DEADLINE = "deadline"
    #: The reply was over the receive limit (or the call read far more than it).
    TOO_LARGE = "too large"
    #: The connection broke mid-call (often a dying process), or the bot's server
    #: cancelled the call.
    BROKEN = "broken"
    #: UNKNOWN: the status gRPC servers send when their handler throws (gRPC's
    #: doc/statuscodes.md): the bot's code crashed.
    RAISED = "raised"
    #: Any other status.
    STATUS = "status"


class CallError(RefereeError):
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
    grpc.StatusCode.UNKNOWN: CallEnd.RAISED,
}


def call_error(code: grpc.StatusCode, details: str) -> CallError:
    """The neutral form of a gRPC status."""
    return CallError(_ENDS.get(code, CallEnd.STATUS), code.name, details)


class _Status(CallError):
    """A status the bot's server sent on a stream that ended cleanly: the connection
    stays usable."""


class _Unprocessed(RefereeError):
    """The server said (GOAWAY) that it never processed this call: it may be made
    again on a new connection."""


def _status(code: grpc.StatusCode, details: str) -> _Status:
    error = call_error(code, details)
    return _Status(error.end, error.status, error.details)


def _broken(details: str) -> CallError:
    return CallError(CallEnd.BROKEN, "UNAVAILABLE", details)


def _too_large(details: str) -> CallError:
    return CallError(CallEnd.TOO_LARGE, "RESOURCE_EXHAUSTED", details)


def _timeout_header(timeout_s: float) -> bytes:
    """gRPC's ``grpc-timeout``: at most 8 digits and a unit (here milliseconds)."""
    return b"%dm" % min(99_999_999, max(1, math.ceil(timeout_s * 1000)))


@dataclass(slots=True)
class Traffic:
    """What calls have read: HTTP/2 frames, the h2 events they made, socket reads."""

    frames: int = 0
    events: int = 0
    reads: int = 0


@dataclass(slots=True)
class _Meter(Traffic):
    """One call's traffic and the most it may read: the per-call bounds, or what is
    left of the match's allowance when that is less."""

    max_frames: int = MAX_CALL_FRAMES
    max_events: int = MAX_CALL_EVENTS
    max_reads: int = MAX_CALL_READS

    def flood(self, what: str, bound: int, per_call: int) -> BotFailure:
        if bound == per_call:
            return BotFailure(
                Failure.ILLEGAL, f"your server sent more than {bound} {what} in one call"
            )
        return BotFailure(
            Failure.ILLEGAL,
            f"your server sent more {what} than a match allows "
            f"({MATCH_FRAMES_BASE} + {MATCH_FRAMES_PER_CALL} a call)",
        )


@dataclass
class _Call:
    """What one stream has received so far."""

    stream_id: int
    limit: int  # longest reply message accepted, in bytes
    left: int  # bytes this call may still read off the socket, all frames counted
    meter: _Meter
    body: bytearray = field(default_factory=bytearray)
    expected: int | None = None  # prefix + message length, once the prefix is in
    http_status: bytes | None = None
    grpc_status: bytes | None = None
    grpc_message: bytes = b""
    ended: bool = False

    def headers(self, headers: list[tuple[bytes, bytes]]) -> None:
        for name, value in headers:
            if name == b":status":
                self.http_status = value
            elif name == b"grpc-status":
                self.grpc_status = value
            elif name == b"grpc-message":
                self.grpc_message = value

    def data(self, chunk: bytes) -> None:
        """Keep a piece of the reply, refusing what the prefix says is too much."""
        self.body += chunk
        if self.expected is None and len(self.body) >= _PREFIX:
            if self.body[0] != 0:
                raise BotFailure(
                    Failure.ILLEGAL, "the reply is compressed (no compression was offered)"
                )
            length = int.from_bytes(self.body[1:_PREFIX], "big")
            if length > self.limit:
                raise _too_large(f"a reply of {length} bytes (at most {self.limit})")
            self.expected = _PREFIX + length
        if self.expected is not None and len(self.body) > self.expected:
            raise BotFailure(Failure.ILLEGAL, "two replies to one call")

    def outcome(self) -> bytes:
        """The reply's bytes once the stream ended; its status as a CallError."""
        if self.grpc_status is None:
            if self.http_status not in (None, b"200"):
                status = (self.http_status or b"").decode("ascii", "replace")
                raise CallError(CallEnd.STATUS, "UNKNOWN", clip(f"HTTP status {status}"))
            raise CallError(CallEnd.STATUS, "INTERNAL", "the call ended without a status")
        try:
            code = _CODES.get(int(self.grpc_status), grpc.StatusCode.UNKNOWN)
        except ValueError:
            code = grpc.StatusCode.UNKNOWN
        if code is not grpc.StatusCode.OK:
            details = unquote(self.grpc_message.decode("ascii", "replace"), errors="replace")
            raise _status(code, clip(details))
        if not self.body:
            raise BotFailure(Failure.ILLEGAL, "the server ended the call without a reply")
        if len(self.body) != self.expected:
            raise BotFailure(
                Failure.ILLEGAL, "the reply is not a valid message (it was cut short)"
            )
        return bytes(self.body[_PREFIX:])


class _Link:
    """One HTTP/2 connection to a bot's server, used by one call at a time."""

    def __init__(self, sock: socket.socket, max_message_bytes: int) -> None:
        self.limit = max_message_bytes
        # The plain socket, non-blocking, waited on with trio's low-level waits: a trio
        # socket would add a pass through the scheduler to every send that completes
        # at once (all of them, in practice).
        sock.setblocking(False)
        self.sock = sock
        # HPACK made once per field and per reply block (niwa.proto.hpack_cache); of
        # the bot's headers only three values are read.
        self.h2 = http2.connection(
            client=True, encoder=StaticEncoder(), decoder=ReplyDecoder(),
            window=min(max_message_bytes + (64 << 10), 2**31 - 1),
            max_header_bytes=MAX_HEADER_BYTES,
        )
        self.gone = False  # the server sent GOAWAY: no new call on this connection
        # Where the next frame header starts, to count frames before h2 parses them:
        # the bytes of the current frame's payload still to come, or the first bytes
        # of a header split between reads.
        self._skip = 0
        self._head = b""

    def frames_in(self, data: bytes) -> int:
        """How many frame headers complete in ``data`` (the bytes that follow the
        connection's earlier reads)."""
        count, pos, end = 0, self._skip, len(data)
        if self._head:
            need = _FRAME_HEADER - len(self._head)
            head = self._head + data[:need]
            if len(head) < _FRAME_HEADER:
                self._head = head
                return 0
            count, pos, self._head = 1, need + int.from_bytes(head[:3], "big"), b""
        while pos + _FRAME_HEADER <= end:
            count += 1
            pos += _FRAME_HEADER + int.from_bytes(data[pos : pos + 3], "big")
        if pos < end:
            self._head, self._skip = data[pos:], 0
        else:
            self._skip = pos - end
        return count

    async def flush(self) -> None:
        data = memoryview(self.h2.data_to_send())
        try:
            while data:
                try:
                    data = data[self.sock.send(data) :]
                except BlockingIOError:  # the bot is not reading: wait until it does
                    await trio.lowlevel.wait_writable(self.sock)
        except OSError as e:
            raise _broken(f"the connection to the bot's server broke: {e.strerror or e}") from None

    async def exchange(
        self, path: bytes, payload: bytes, timeout_s: float, meter: _Meter
    ) -> bytes:
        """One unary call: send the request, read until its stream ends."""
        try:
            return await self._exchange(path, payload, timeout_s, meter)
        except (h2.exceptions.H2Error, hpack.HPACKError) as e:  # sending, say after GOAWAY
            raise _broken(clip(f"HTTP/2 refused the call: {type(e).__name__}: {e}")) from None

    async def _exchange(
        self, path: bytes, payload: bytes, timeout_s: float, meter: _Meter
    ) -> bytes:
        conn = self.h2
        call = _Call(conn.get_next_available_stream_id(), self.limit,
                     self.limit + MAX_CALL_BYTES_OVER, meter)  # fmt: skip
        conn.send_headers(
            call.stream_id,
            [
                (b":method", b"POST"), (b":scheme", b"http"), (b":path", path),
                (b":authority", b"bot"), (b"te", b"trailers"),
                (b"content-type", b"application/grpc"),
                (b"grpc-timeout", _timeout_header(timeout_s)),
            ],
        )  # fmt: skip
        body = len(payload).to_bytes(_PREFIX, "big") + payload  # flag 0: uncompressed
        sent = 0
        while sent < len(body):  # as much as the bot's flow-control windows allow
            room = min(conn.local_flow_control_window(call.stream_id),
                       conn.max_outbound_frame_size, len(body) - sent)  # fmt: skip
            if room <= 0:
                await self.flush()
                await self.receive(call)  # window updates (or an early end)
                if call.ended:
                    return call.outcome()
                continue
            conn.send_data(call.stream_id, body[sent : sent + room],
                           end_stream=sent + room == len(body))  # fmt: skip
            sent += room
        await self.flush()
        while not call.ended:
            await self.receive(call)
        return call.outcome()

    async def receive(self, call: _Call) -> None:
        """Read once from the socket and apply what arrived to ``call``."""
        try:
            while True:
                await trio.lowlevel.wait_readable(self.sock)
                try:
                    data = self.sock.recv(RECV_BYTES)
                    break
                except BlockingIOError:  # woken for nothing: wait again
                    continue
        except OSError as e:
            raise _broken(f"the connection to the bot's server broke: {e.strerror or e}") from None
        if not data:
            raise _broken("the bot's server closed the connection")
        meter = call.meter
        meter.reads += 1
        if meter.reads > meter.max_reads:
            raise meter.flood("pieces (socket reads)", meter.max_reads, MAX_CALL_READS)
        call.left -= len(data)
        if call.left < 0:
            raise _too_large(f"the call read over {call.limit + MAX_CALL_BYTES_OVER} bytes")
        # Counted before h2 parses them: the frames over the bound never cost the parse.
        frames = self.frames_in(data)
        if meter.frames + frames > meter.max_frames:
            raise meter.flood("HTTP/2 frames", meter.max_frames, MAX_CALL_FRAMES)
        meter.frames += frames
        try:
            events = self.h2.receive_data(data)
        except (h2.exceptions.H2Error, hpack.HPACKError) as e:
            raise _broken(
                clip(f"the bot's server broke HTTP/2: {type(e).__name__}: {e}")
            ) from None
        meter.events += len(events)
        if meter.events > meter.max_events:
            raise meter.flood("HTTP/2 events", meter.max_events, MAX_CALL_EVENTS)
        for event in events:
            self.apply(event, call)
        await self.flush()  # acknowledgements, window updates, ping replies

    def apply(self, event: h2.events.Event, call: _Call) -> None:
        ours = getattr(event, "stream_id", None) == call.stream_id
        if isinstance(event, h2.events.DataReceived):
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if ours:
                call.data(event.data)
        elif isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
            if ours:
                call.headers(event.headers)
        elif isinstance(event, h2.events.StreamEnded):
            call.ended = call.ended or ours
        elif isinstance(event, h2.events.StreamReset) and ours:
            code = int(event.error_code or 0)
            cancel = code == h2.errors.ErrorCodes.CANCEL
            status = grpc.StatusCode.CANCELLED if cancel else grpc.StatusCode.INTERNAL
            raise _status(status, f"the bot's server reset the call (HTTP/2 error {code})")
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.gone = True
            if not call.ended and (event.last_stream_id or 0) < call.stream_id:
                raise _Unprocessed
            if not call.ended:
                code = int(event.error_code or 0)
                raise _broken(f"the bot's server ended the connection (GOAWAY, error {code})")


class BotClient:
    """A connection to one bot's Unix socket, made at the first call."""

    def __init__(self, socket_path: str, max_message_bytes: int) -> None:
        self._path = socket_path
        self._limit = max_message_bytes
        self._link: _Link | None = None
        #: What all calls so far have read (their frames, events and reads).
        self.traffic = Traffic()
        self._calls = 0

    def _meter(self) -> _Meter:
        """The next call's bounds: the per-call ones, or what is left of the match's
        allowance (twice as many events as frames: a frame makes one to three)."""
        self._calls += 1
        room = MATCH_FRAMES_BASE + MATCH_FRAMES_PER_CALL * self._calls
        spent = self.traffic
        return _Meter(
            max_frames=max(0, min(MAX_CALL_FRAMES, room - spent.frames)),
            max_events=max(0, min(MAX_CALL_EVENTS, 2 * room - spent.events)),
            max_reads=max(0, min(MAX_CALL_READS, room - spent.reads)),
        )

    async def _connect(self) -> _Link:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            await trio.socket.from_stdlib_socket(sock).connect(self._path)
        except OSError as e:
            sock.close()
            raise _broken(f"cannot connect to the bot's socket: {e.strerror or e}") from None
        except BaseException:
            sock.close()
            raise
        link = _Link(sock, self._limit)
        self._link = link
        return link

    async def _call(self, name: str, request: Any, reply: Any, timeout_s: float) -> Any:
        timeout_s = max(timeout_s, 0.001)
        payload = request.SerializeToString()
        meter = self._meter()
        try:
            return await self._metered(name, payload, reply, timeout_s, meter)
        finally:
            spent = self.traffic
            spent.frames += meter.frames
            spent.events += meter.events
            spent.reads += meter.reads

    async def _metered(
        self, name: str, payload: bytes, reply: Any, timeout_s: float, meter: _Meter
    ) -> Any:
        with trio.move_on_after(timeout_s):
            if self._link is not None and self._link.gone:
                self.close()
            path = (_METHOD + name).encode()
            for last in (False, True):
                try:
                    link = self._link or await self._connect()
                    data = await link.exchange(path, payload, timeout_s, meter)
                    break
                except _Unprocessed:  # the server was going away: once more, anew
                    self.close()
                    if last:
                        raise _broken("the bot's server refused the call twice (GOAWAY)") from None
                except _Status:  # the bot's server answered with a status: still connected
                    raise
                except BaseException:  # cut short (cancelled, broken, hostile): unusable
                    self.close()
                    raise
            try:
                return reply.FromString(data)
            except Exception as e:  # upb raises DecodeError; anything else is just as bad
                why = clip(f"{type(e).__name__}: {e}")
                raise BotFailure(
                    Failure.ILLEGAL, f"the reply is not a valid message ({why})"
                ) from None
        self.close()  # the bot's server sees the call cancelled
        raise CallError(CallEnd.DEADLINE, "DEADLINE_EXCEEDED", "Deadline Exceeded")

    @property
    def calls(self) -> int:
        """Calls made so far."""
        return self._calls

    @property
    def target(self) -> str:
        """The socket this client connects to."""
        return self._path

    def serving(self) -> bool | None:
        """Whether the connection is up: a status that arrives on it was sent by the
        bot's server; a dropped or refused connection is closed by then."""
        return self._link is not None

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
        reply = await self._call("Start", request, bot_pb2.StartReply, timeout_s)
        return clip(reply.name, 64), clip(reply.version, 64)

    def act_request(self, question: Question) -> Any:
        """The ``ActRequest`` for a question (referee data only: errors here are ours)."""
        request = bot_pb2.ActRequest(
            decision=question.decision,
            seat=question.seat,
            observation_json=observation_json(question),
            legal_actions_json=[canonical_json(a) for a in question.legal_actions],
        )
        # Set in place: a Clock message built apart and copied in cost 0.45 µs more.
        clock = request.clock
        clock.time_left_ms = question.time_left_ms
        clock.per_decision_ms = question.per_decision_ms
        clock.bank_ms = question.bank_ms
        return request

    async def act(self, question: Question, timeout_s: float, request: Any = None) -> Reply:
        if request is None:
            request = self.act_request(question)
        reply = await self._call("Act", request, bot_pb2.ActReply, timeout_s)
        return reply_from_proto(reply)

    async def finish(self, result: Finish, timeout_s: float) -> None:
        request = bot_pb2.FinishRequest(
            scores=result.scores, places=result.places, seat=result.seat
        )
        await self._call("Finish", request, bot_pb2.FinishReply, timeout_s)

    def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            # wake a wait on it, if any (outside trio nobody can be waiting on it)
            with contextlib.suppress(RuntimeError):
                trio.lowlevel.notify_closing(link.sock)
            link.sock.close()


def observation_json(question: Turn) -> str:
    """A question's observation as wire text: spelled straight from the state when the
    referee made the question, else the canonical JSON of the observation."""
    if isinstance(question, Question):
        return question.observation_json()
    return canonical_json(question.observation)


def reply_from_proto(reply: Any) -> Reply:
    """An ``ActReply`` as a :class:`Reply`; ILLEGAL if it names nothing usable."""
    note = clip(reply.note, NOTE_LIMIT)
    debug = cut_debug(reply.debug)
    thinking = thinking_from_proto(reply.thinking) if reply.HasField("thinking") else None
    which = reply.WhichOneof("choice")
    if which == "index":
        return Reply(index=reply.index, note=note, debug=debug, thinking=thinking)
    if which == "action_json":
        action = decode_action_json(reply.action_json)
        return Reply(action=action, note=note, debug=debug, thinking=thinking)
    raise BotFailure(Failure.ILLEGAL, "the answer sets neither index nor action_json")


def thinking_from_proto(message: Any) -> Thinking:
    """A ``Thinking`` message as :class:`Thinking`, its principal variation decoded
    like an action (past PV_LIMIT actions it is not read); one whose variation does
    not decode is :class:`Unreadable`, for the referee to drop, never a failure."""
    shares, values = tuple(message.shares), tuple(message.values)
    pv = []
    for i, text in enumerate(message.pv_json[:PV_LIMIT]):
        try:
            pv.append(decode_action_json(text))
        except BotFailure as f:
            return Unreadable(shares, values, (), problem=f"pv[{i}]: {f.detail}")
    return Thinking(shares, values, tuple(pv))


#: The bounds of a bot's ``action_json``.
ACTION_BOUNDS = Bounds(
    max_chars=MAX_ACTION_CHARS,
    max_depth=MAX_ACTION_DEPTH,
    max_number_chars=MAX_NUMBER_CHARS,
    finite_floats=True,
)


def decode_action_json(text: str) -> JSON:
    """The action a bot wrote as JSON, decoded with bounded size, depth and numbers;
    anything else is ILLEGAL with a one-line detail."""
    try:
        value = bounded_json.decode(text, ACTION_BOUNDS)
        canonical_json(value).encode("utf-8")  # a lone surrogate (\ud800) has no UTF-8
    except UntrustedJsonError as e:
        raise BotFailure(Failure.ILLEGAL, _refusal(e, text)) from None
    except UnicodeError as e:
        raise BotFailure(Failure.ILLEGAL, f"action_json is refused: {clip(str(e))}") from None
    return value


def _refusal(e: UntrustedJsonError, text: str) -> str:
    """The words a bot author has always seen for each refusal."""
    if e.bound == "chars":
        return f"action_json has {e.found} characters (at most {e.limit})"
    if e.bound == "depth" and e.limit:
        return f"action_json nests {e.found} deep (at most {e.limit})"
    if e.bound == "syntax":
        return f"action_json is not JSON ({e.reason} at {e.pos}): {clip(text, 80)!r}"
    return f"action_json is refused: {clip(str(e))}"
