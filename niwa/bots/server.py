"""The gRPC side of the SDK: serves one bot object as the ``niwa.v1.Bot`` service.

gRPC over HTTP/2 is spoken here with the ``h2`` protocol library (sans-IO), not with
grpcio's server: that one hands every call from its poller thread to a worker thread,
which cost the bot more CPU per call than the referee spent on the whole call.
Here each accepted connection
has a thread of its own that reads a request, runs the bot and writes the reply
itself. A thread per connection, because the referee gives up on a late call by
closing its connection and asks the next question on a new one: the new thread
answers while the old one may still be inside the bot's ``act``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import select
import signal
import socket
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import h2.errors
import h2.events
import h2.exceptions
import hpack
from hpack.hpack import decode_integer
from hpack.table import HeaderTable

from niwa.bots.sdk import (
    READY_LINE,
    SOCKET_ENV,
    Bot,
    Finish,
    GameStart,
    Thinking,
    Turn,
    as_reply,
    exception_line,
)
from niwa.errors import BotError
from niwa.proto import http2
from niwa.proto.hpack_cache import StaticEncoder
from niwa.proto.v1 import bot_pb2

#: Largest request message accepted, in bytes: grpcio's default receive limit.
MAX_REQUEST_BYTES = 4 << 20
#: Largest header block accepted (gRPC's own default is 8 KiB).
MAX_HEADER_BYTES = 16 << 10
#: Bytes read from the socket at a time.
RECV_BYTES = 64 << 10

_PREFIX = 5  # a gRPC message: 1 byte compressed flag, 4 bytes big-endian length
# gRPC status codes (grpc's doc/statuscodes.md), as the bytes of their trailer.
_UNKNOWN = b"2"
_RESOURCE_EXHAUSTED = b"8"
_UNIMPLEMENTED = b"12"
_INTERNAL = b"13"
# grpc-message is percent-encoded: every byte outside printable ASCII, and "%".
_MESSAGE_SAFE = "".join(chr(c) for c in range(0x20, 0x7F) if c != ord("%"))
_REPLY_HEADERS = [(b":status", b"200"), (b"content-type", b"application/grpc")]
_OK_TRAILERS = [(b"grpc-status", b"0")]
#: Distinct fields _FieldDecoder keeps; past it the memo starts again (each
#: grpc-timeout makes a field).
MEMO_BLOCKS = 64
_STATIC: tuple[tuple[bytes, bytes], ...] = HeaderTable.STATIC_TABLE


class _Raised(BotError):
    """The bot's code raised: the call ends with status UNKNOWN and this line."""


class _Stopped(BotError):
    """SIGTERM: the accepting loop ends."""


def _json_list(texts: Any) -> list[Any]:
    """Values each written as one JSON text, decoded in a single parse: a question's
    legal actions, decoded one by one, cost the bot three times as much."""
    values: list[Any] = json.loads("[" + ",".join(texts) + "]")
    return values


def _json_text(value: Any) -> str:
    """An action as the wire spells it: canonical JSON (keys sorted, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _put_thinking(out: Any, thinking: Thinking) -> None:
    """``thinking`` into the reply message; one that does not encode (a share that is
    no number, an action that is no JSON) is left out with a line on stderr: it is
    never worth the decision."""
    try:
        out.thinking.shares.extend(thinking.shares)
        out.thinking.values.extend(thinking.values)
        out.thinking.pv_json.extend(_json_text(a) for a in thinking.pv)
    except (TypeError, ValueError) as e:
        out.ClearField("thinking")
        print(f"niwa: thinking left out of the reply: {exception_line(e)}", file=sys.stderr)


class _Servicer:
    """The three calls, from request message to reply message. The bot's exceptions
    come out as :class:`_Raised`, after their traceback went to stderr."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seed = 0

    def Start(self, request: Any) -> Any:
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
        self._hook("start", game)
        return bot_pb2.StartReply(
            name=str(getattr(self.bot, "name", type(self.bot).__name__)),
            version=str(getattr(self.bot, "version", "")),
        )

    def Act(self, request: Any) -> Any:
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
            raise _raised(e) from e
        if reply.has_action:
            out = bot_pb2.ActReply(action_json=_json_text(reply.action), note=reply.note,
                                   debug=reply.debug)
        else:
            out = bot_pb2.ActReply(index=reply.index, note=reply.note, debug=reply.debug)
        if reply.thinking is not None:
            _put_thinking(out, reply.thinking)
        return out

    def Finish(self, request: Any) -> Any:
        self._hook("finish", Finish(list(request.scores), list(request.places), request.seat))
        return bot_pb2.FinishReply()

    def _hook(self, name: str, arg: Any) -> None:
        hook = getattr(self.bot, name, None)
        if hook is None:
            return
        try:
            hook(arg)
        except Exception as e:
            raise _raised(e) from e


def _raised(error: Exception) -> _Raised:
    """The bot's code raised: its traceback to stderr (the referee keeps the tail), and
    status UNKNOWN with the exception's one line, which is what a gRPC server in any
    language sends when a handler throws: the referee counts it as a crash
    (docs/protocol.md, "Failures")."""
    traceback.print_exc(file=sys.stderr)
    return _Raised(exception_line(error))


@dataclass(slots=True)
class _Method:
    parse: Callable[[bytes], Any]
    handle: Callable[[Any], Any]


def _methods(servicer: _Servicer) -> dict[bytes, _Method]:
    return {
        b"/niwa.v1.Bot/Start": _Method(bot_pb2.StartRequest.FromString, servicer.Start),
        b"/niwa.v1.Bot/Act": _Method(bot_pb2.ActRequest.FromString, servicer.Act),
        b"/niwa.v1.Bot/Finish": _Method(bot_pb2.FinishRequest.FromString, servicer.Finish),
    }


@dataclass(slots=True)
class _Stream:
    """One call's request as it arrives."""

    path: bytes = b""
    encoding: bytes = b"identity"
    body: bytearray = field(default_factory=bytearray)
    answered: bool = False  # refused before its body was complete: the rest is dropped


def _trailers(code: bytes, message: str) -> list[tuple[bytes, bytes]]:
    fields = [(b"grpc-status", code)]
    if message:
        fields.append((b"grpc-message", quote(message, safe=_MESSAGE_SAFE).encode()))
    return fields


class _FieldDecoder(hpack.Decoder):
    """HPACK for the requests. The referee's (niwa.proto.hpack_cache.StaticEncoder)
    use only the static table and literals never added to the dynamic one, and such a
    field's bytes always decode to the same header: each is decoded once (hpack decoding
    a request again, Huffman code included, took 30-55 µs of the bot's CPU per call).
    A block with any other kind of field (grpcio's client indexes its own) is hpack's."""

    def __init__(self) -> None:
        super().__init__()
        self._fields: dict[bytes, tuple[bytes, bytes]] = {}

    def decode(self, data: bytes, raw: bool = False) -> Any:
        if not raw:
            return super().decode(data, raw)
        view, pos, end = memoryview(data), 0, len(data)
        headers: list[tuple[bytes, bytes]] = []
        size = 0
        while pos < end:
            first = view[pos]
            if first & 0x80:  # an indexed field: kept when the index is the static table's
                index, used = decode_integer(view[pos:], 7)
                if not 0 < index <= len(_STATIC):
                    return super().decode(data, raw)
                header = _STATIC[index - 1]
                pos += used
            elif first & 0xE0 == 0:  # a literal not indexed (0000) or never indexed (0001)
                index, used = decode_integer(view[pos:], 4)
                at = pos + used
                if index > len(_STATIC):
                    return super().decode(data, raw)
                for _ in range(1 if index else 2):  # the value, and a literal name first
                    length, used = decode_integer(view[at:], 7)
                    at += used + length
                if at > end:
                    return super().decode(data, raw)  # which says what is wrong
                key = bytes(view[pos:at])
                kept = self._fields.get(key)
                if kept is None:
                    if len(self._fields) >= MEMO_BLOCKS:
                        self._fields.clear()
                    ((name, value),) = super().decode(key, raw)
                    kept = self._fields[key] = (name, value)
                header, pos = kept, at
            else:  # a field added to the table, or a size update: hpack's own way
                return super().decode(data, raw)
            size += len(header[0]) + len(header[1]) + 32
            if size > self.max_header_list_size:
                return super().decode(data, raw)  # which refuses it
            headers.append(header)
        return headers


class _Connection:
    """One client connection, served by its own thread: requests are answered in the
    order their bodies complete, one at a time."""

    def __init__(self, sock: socket.socket, methods: dict[bytes, _Method]) -> None:
        self.sock = sock
        self.methods = methods
        # A whole request fits the windows: the client never waits for an update. Of
        # the client's headers only :path and grpc-encoding are read.
        self.h2 = http2.connection(
            client=False, encoder=StaticEncoder(), decoder=_FieldDecoder(),
            window=MAX_REQUEST_BYTES + (64 << 10), max_header_bytes=MAX_HEADER_BYTES,
        )  # fmt: skip
        self.streams: dict[int, _Stream] = {}
        self.ready: deque[int] = deque()  # streams whose request is complete
        self.lock = threading.Lock()  # held while the thread works, not while it waits
        self.open = True

    def serve(self) -> None:
        try:
            with self.lock:
                self.flush()
            while self.open:
                data = self.sock.recv(RECV_BYTES)
                with self.lock:
                    if not data:
                        return
                    self.receive(data)
                    while self.ready:  # a GOAWAY from the client ends no call it made
                        self.answer(self.ready.popleft())
                    self.flush()
        except (OSError, h2.exceptions.H2Error, hpack.HPACKError):
            return  # the client went away or spoke badly: only this connection ends
        finally:
            self.open = False
            self.sock.close()

    def receive(self, data: bytes) -> None:
        for event in self.h2.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                self.request(event.stream_id, event.headers)
            elif isinstance(event, h2.events.DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                self.data(event.stream_id, event.data)
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id)
                if stream is not None and stream.answered:
                    del self.streams[event.stream_id]
                elif stream is not None:
                    self.ready.append(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.open = False

    def request(self, stream_id: int, headers: Any) -> None:
        stream = self.streams[stream_id] = _Stream()
        for name, value in headers:
            if name == b":path":
                stream.path = value
            elif name == b"grpc-encoding":
                stream.encoding = value

    def data(self, stream_id: int, chunk: bytes) -> None:
        stream = self.streams.get(stream_id)
        if stream is None or stream.answered:
            return
        body = stream.body
        body += chunk
        if len(body) < _PREFIX:
            return
        # Refused from its prefix, before it all arrives (or when more follows it).
        size = max(int.from_bytes(body[1:_PREFIX], "big"), len(body) - _PREFIX)
        if size > MAX_REQUEST_BYTES:
            stream.answered = True
            stream.body = bytearray()
            self.fail(stream_id, _RESOURCE_EXHAUSTED,
                      f"a request of {size} bytes is over the bot's limit of "
                      f"{MAX_REQUEST_BYTES}: send a smaller message")  # fmt: skip

    def answer(self, stream_id: int) -> None:
        stream = self.streams.pop(stream_id)
        method = self.methods.get(stream.path)
        if method is None:
            name = stream.path.decode(errors="replace")
            self.fail(stream_id, _UNIMPLEMENTED, f"no method {name}: this server is niwa.v1.Bot")
            return
        body = stream.body
        if len(body) < _PREFIX or len(body) != _PREFIX + int.from_bytes(body[1:_PREFIX], "big"):
            self.fail(stream_id, _INTERNAL, "the request is not one length-prefixed message")
            return
        if body[0]:
            self.fail(stream_id, _UNIMPLEMENTED,
                      f"compressed request ({stream.encoding.decode(errors='replace')}): "
                      "this server takes only uncompressed messages")  # fmt: skip
            return
        try:
            request = method.parse(bytes(body[_PREFIX:]))
        except Exception:  # protobuf's DecodeError, not importable as one type everywhere
            self.fail(stream_id, _INTERNAL, "the request message does not parse")
            return
        try:
            reply = method.handle(request).SerializeToString()
        except _Raised as e:
            self.fail(stream_id, _UNKNOWN, str(e))
            return
        message = len(reply).to_bytes(_PREFIX, "big") + reply  # flag 0: not compressed
        with contextlib.suppress(h2.exceptions.StreamClosedError):  # the client reset it
            self.h2.send_headers(stream_id, _REPLY_HEADERS)
            self.send_body(stream_id, message)
            self.h2.send_headers(stream_id, _OK_TRAILERS, end_stream=True)

    def fail(self, stream_id: int, code: bytes, message: str) -> None:
        """A trailers-only reply: the status and nothing else."""
        with contextlib.suppress(h2.exceptions.StreamClosedError):  # reset meanwhile
            self.h2.send_headers(stream_id, _REPLY_HEADERS + _trailers(code, message),
                                 end_stream=True)  # fmt: skip

    def send_body(self, stream_id: int, message: bytes) -> None:
        """As much at a time as the client's windows allow, reading its updates (and
        queueing any other request that completes meanwhile) when they are shut."""
        view = memoryview(message)
        while view:
            room = min(self.h2.local_flow_control_window(stream_id),
                       self.h2.max_outbound_frame_size, len(view))  # fmt: skip
            if room <= 0:
                self.flush()
                self.lock.release()  # SIGTERM may end the connection meanwhile
                try:
                    data = self.sock.recv(RECV_BYTES)
                finally:
                    self.lock.acquire()
                if not data or not self.open:
                    raise ConnectionResetError("the client left mid-reply")
                self.receive(data)
                continue
            self.h2.send_data(stream_id, view[:room].tobytes())
            view = view[room:]

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def stop(self) -> None:
        """SIGTERM: GOAWAY if the thread is not in the middle of a call (h2's state is
        not shared between threads), then the connection ends either way, as grpcio's
        server ended calls in flight: the client learns at once that no answer comes."""
        if self.lock.acquire(blocking=False):
            try:
                if self.open:
                    self.h2.close_connection()
                    self.flush()
            except (OSError, h2.exceptions.H2Error):
                pass
            finally:
                self.lock.release()
        with contextlib.suppress(OSError):  # the thread may have closed it meanwhile
            self.sock.shutdown(socket.SHUT_RDWR)


def announce_ready() -> None:
    """Tell the referee the bot serves: ``READY`` and its newline in one write. Under
    PYTHONUNBUFFERED (the referee sets it) ``print`` writes the text and the newline
    apart, and a line from another thread of the bot could land between them and hide
    READY (the referee then waits out its start-up limit)."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), f"{READY_LINE}\n".encode())


def _listen(path: str) -> socket.socket:
    if os.path.exists(path):  # a socket left by an earlier run of the bot
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    return listener


def _stop(*_: Any) -> None:
    raise _Stopped("SIGTERM")


def _wake_on_signals() -> tuple[socket.socket, socket.socket]:
    """Two connected sockets: the first turns readable when a signal with a Python
    handler arrives, in whichever thread the kernel delivers it. A SIGTERM taken by a
    connection's thread only marks the handler as due: the main thread, blocked in
    ``accept``, would not run it until the next connection came (seen under load: the
    bot outlived its SIGTERM). The caller keeps both open: the handler holds only the
    second's number."""
    receiving, sending = socket.socketpair()
    sending.setblocking(False)
    signal.set_wakeup_fd(sending.fileno(), warn_on_full_buffer=False)
    receiving.setblocking(False)
    return receiving, sending


def serve_forever(bot: Bot) -> None:
    path = os.environ.get(SOCKET_ENV)
    if not path:
        sys.exit(f"{SOCKET_ENV} is not set: bots are started by the referee (niwa play)")
    methods = _methods(_Servicer(bot))
    listener = _listen(path)
    woken, waking = _wake_on_signals()
    connections: list[_Connection] = []
    try:
        signal.signal(signal.SIGTERM, _stop)
        # Everything imported so far lives as long as the bot: out of the collector's
        # way, a full collection during a match walks only what the bot made since.
        gc.freeze()
        announce_ready()
        while True:
            # The handler raises here at the latest: the main thread runs Python again.
            readable, _, _ = select.select([listener, woken], [], [])
            if woken in readable:
                woken.recv(RECV_BYTES)  # a signal whose handler did not stop the bot
            if listener not in readable:
                continue
            sock, _ = listener.accept()
            connection = _Connection(sock, methods)
            connections = [c for c in connections if c.open]
            connections.append(connection)
            # A daemon: a thread still inside the bot's act() must not keep a stopped
            # bot alive.
            threading.Thread(target=connection.serve, daemon=True).start()
    except _Stopped:
        for connection in connections:
            connection.stop()
    finally:
        listener.close()
        signal.set_wakeup_fd(-1)
        woken.close()
        waking.close()
