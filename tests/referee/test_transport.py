"""The gRPC edge: one call over HTTP/2 to a bot's server, and what a raw answer turns
into. Hostile servers are scripted with h2's server side (the real grpcio server is
used where it behaves)."""

from __future__ import annotations

import os
import random
import socket
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import pytest
import trio

from niwa import engine
from niwa.bots.sdk import GameStart
from niwa.engine.bounded_json import json_depth
from niwa.engine.testing import playout
from niwa.proto.v1 import bot_pb2, bot_pb2_grpc
from niwa.referee.failures import BotFailure, Failure, clip
from niwa.referee.players import Question, make_question
from niwa.referee.transport import (
    MAX_ACTION_CHARS,
    MAX_CALL_BYTES_OVER,
    MAX_CALL_FRAMES,
    MAX_CALL_READS,
    BotClient,
    CallEnd,
    CallError,
    _Call,
    _Link,
    _Meter,
    call_error,
    decode_action_json,
    reply_from_proto,
)
from tests.polling import PATIENCE_S

LIMIT = 64 << 10  # the receive limit of the clients here
START = GameStart("toy", "toy@1", 0, 2, {}, 1000, 1000, 7)
Script = Callable[["Server", int], Awaitable[None]]


class Server:
    """One HTTP/2 connection's server side; ``script`` answers each request."""

    def __init__(self, sock: trio.socket.SocketType) -> None:
        self.sock = sock
        self.h2 = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding=None)
        )

    async def flush(self) -> None:
        await self.raw(self.h2.data_to_send())

    async def raw(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[await self.sock.send(view) :]

    async def headers(self, sid: int, end: bool = False, **extra: str) -> None:
        fields = [(b":status", b"200"), (b"content-type", b"application/grpc")]
        fields += [(k.replace("_", "-").encode(), v.encode()) for k, v in extra.items()]
        self.h2.send_headers(sid, fields, end_stream=end)
        await self.flush()

    async def message(self, sid: int, body: bytes, flag: int = 0, length: int = -1) -> None:
        size = len(body) if length < 0 else length
        self.h2.send_data(sid, bytes([flag]) + size.to_bytes(4, "big") + body)
        await self.flush()

    async def trailers(self, sid: int, status: int = 0, message: str = "") -> None:
        fields = [(b"grpc-status", str(status).encode())]
        if message:
            fields.append((b"grpc-message", message.encode()))
        self.h2.send_headers(sid, fields, end_stream=True)
        await self.flush()

    async def serve(self, script: Script) -> None:
        self.h2.initiate_connection()
        await self.flush()
        while self.sock.fileno() != -1:
            try:
                data = await self.sock.recv(1 << 16)
                if not data:
                    return
                for event in self.h2.receive_data(data):
                    if isinstance(event, h2.events.StreamEnded):
                        await script(self, event.stream_id)
                if self.sock.fileno() != -1:
                    await self.flush()
            except (OSError, h2.exceptions.ProtocolError):
                return  # the client hung up, or this connection was closed


def start_reply() -> bytes:
    return bot_pb2.StartReply(name="scripted", version="1").SerializeToString()


async def answers(server: Server, sid: int) -> None:
    await server.headers(sid)
    await server.message(sid, start_reply())
    await server.trailers(sid)


def call_with(
    script: Script, tmp_path: Path, calls: int = 1, timeout_s: float = PATIENCE_S
) -> Any:
    """Serve ``script`` on a Unix socket and make ``calls`` Start calls; the client and
    the last outcome (a reply's name, or the exception)."""
    path = str(tmp_path / "bot.sock")
    client = BotClient(path, LIMIT)
    outcome: list[Any] = []

    async def main() -> None:
        listener = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        await listener.bind(path)
        listener.listen()

        async def accept() -> None:
            while True:
                sock, _ = await listener.accept()
                nursery.start_soon(Server(sock).serve, script)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(accept)
            for _ in range(calls):
                try:
                    outcome.append((await client.start(START, timeout_s))[0])
                except (CallError, BotFailure) as e:
                    outcome.append(e)
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        listener_path = Path(path)
        if listener_path.exists():
            listener_path.unlink()
    return client, outcome[-1]


def test_a_single_reply_is_returned(tmp_path: Path) -> None:
    client, outcome = call_with(answers, tmp_path)
    assert outcome == "scripted" and client.serving()
    client.close()


def test_calls_share_one_connection(tmp_path: Path) -> None:
    connections = []

    async def counted(server: Server, sid: int) -> None:
        if server not in connections:
            connections.append(server)
        await answers(server, sid)

    _, outcome = call_with(counted, tmp_path, calls=3)
    assert outcome == "scripted" and len(connections) == 1


def test_a_second_reply_is_illegal(tmp_path: Path) -> None:
    async def twice(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.message(sid, start_reply())
        await server.message(sid, start_reply())
        await server.trailers(sid)

    client, outcome = call_with(twice, tmp_path)
    assert isinstance(outcome, BotFailure) and outcome.kind == Failure.ILLEGAL
    assert "two replies" in outcome.detail and not client.serving()


def test_a_call_that_ends_without_a_reply_is_illegal(tmp_path: Path) -> None:
    async def nothing(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.trailers(sid)

    _, outcome = call_with(nothing, tmp_path)
    assert isinstance(outcome, BotFailure) and "without a reply" in outcome.detail


def test_a_reply_that_does_not_parse_is_illegal(tmp_path: Path) -> None:
    async def garbled(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.message(sid, b"\xff\xff\xff")
        await server.trailers(sid)

    _, outcome = call_with(garbled, tmp_path)
    assert isinstance(outcome, BotFailure) and "not a valid message" in outcome.detail


def test_a_reply_cut_short_is_illegal(tmp_path: Path) -> None:
    async def short(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.message(sid, b"\x0a\x01", length=100)
        await server.trailers(sid)

    _, outcome = call_with(short, tmp_path)
    assert isinstance(outcome, BotFailure) and "cut short" in outcome.detail


def test_a_compressed_reply_is_illegal(tmp_path: Path) -> None:
    async def compressed(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.message(sid, start_reply(), flag=1)
        await server.trailers(sid)

    _, outcome = call_with(compressed, tmp_path)
    assert isinstance(outcome, BotFailure) and "compressed" in outcome.detail


def test_a_reply_announced_over_the_limit_is_refused_before_its_body(tmp_path: Path) -> None:
    async def huge(server: Server, sid: int) -> None:
        await server.headers(sid)
        await server.message(sid, b"", length=1 << 30)  # the gigabyte never follows

    _, outcome = call_with(huge, tmp_path)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.TOO_LARGE
    assert str(1 << 30) in outcome.details


def test_a_flood_of_frames_is_cut_off_at_the_calls_byte_budget(tmp_path: Path) -> None:
    # Frames of a type HTTP/2 says to ignore: nothing in them is kept, but read they are
    # (large ones: small ones would meet the bound on frames first).
    frame = (16000).to_bytes(3, "big") + b"\xfa\x00" + (0).to_bytes(4, "big") + b"x" * 16000

    async def flood(server: Server, sid: int) -> None:
        await server.headers(sid)
        with trio.move_on_after(10):
            for _ in range((LIMIT + MAX_CALL_BYTES_OVER) // len(frame) + 10):
                await server.raw(frame)

    _, outcome = call_with(flood, tmp_path)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.TOO_LARGE


@pytest.mark.parametrize("copies", [200, 6])
def test_a_header_block_that_decodes_past_its_limit_is_a_broken_call(
    tmp_path: Path, copies: int
) -> None:
    # HPACK's table makes a small block expand: one 4 kB value, then 200 one-byte
    # references to it, is 800 kB of headers; 6 copies are 24 kB, over the 16 KiB limit.
    async def expands(server: Server, sid: int) -> None:
        fields = [(b":status", b"200")] + [(b"x-big", b"v" * 4000)] * copies
        server.h2.send_headers(sid, fields)
        await server.flush()

    client, outcome = call_with(expands, tmp_path)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.BROKEN
    assert not client.serving()


def test_a_server_that_never_opens_its_window_runs_out_the_deadline(tmp_path: Path) -> None:
    big = bot_pb2.StartRequest(game="x" * 200_000)  # over the default 64 kB window

    async def main() -> Any:
        path = str(tmp_path / "bot.sock")
        listener = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        await listener.bind(path)
        listener.listen()

        async def closed_window() -> None:
            sock, _ = await listener.accept()
            server = Server(sock)
            server.h2.initiate_connection()
            await server.flush()
            await trio.sleep_forever()  # reads nothing: no WINDOW_UPDATE ever

        async with trio.open_nursery() as nursery:
            nursery.start_soon(closed_window)
            client = BotClient(path, LIMIT)
            try:
                await client._call("Start", big, bot_pb2.StartReply, 0.3)
            except CallError as e:
                return e
            finally:
                nursery.cancel_scope.cancel()
        return None

    outcome = trio.run(main)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.DEADLINE


def test_headers_under_the_limit_are_read(tmp_path: Path) -> None:
    async def wordy(server: Server, sid: int) -> None:
        server.h2.send_headers(sid, [(b":status", b"200")] + [(b"x-big", b"v" * 4000)] * 3)
        await server.message(sid, start_reply())
        await server.trailers(sid)

    _, outcome = call_with(wordy, tmp_path)
    assert outcome == "scripted"


def test_a_status_from_the_server_keeps_the_connection(tmp_path: Path) -> None:
    async def refuses(server: Server, sid: int) -> None:
        await server.headers(sid, end=True, grpc_status="13", grpc_message="boom%20here")

    client, outcome = call_with(refuses, tmp_path)
    assert isinstance(outcome, CallError)
    assert (outcome.end, outcome.status, outcome.details) == (
        CallEnd.STATUS, "INTERNAL", "boom here"
    )
    assert client.serving()
    client.close()


def test_an_http_error_without_a_grpc_status_is_a_status_not_a_raised_handler(
    tmp_path: Path,
) -> None:
    async def http_500(server: Server, sid: int) -> None:
        server.h2.send_headers(sid, [(b":status", b"500")], end_stream=True)
        await server.flush()

    client, outcome = call_with(http_500, tmp_path)
    assert isinstance(outcome, CallError)
    assert (outcome.end, outcome.details) == (CallEnd.STATUS, "HTTP status 500")
    client.close()


def test_a_reset_stream_is_the_servers_cancellation(tmp_path: Path) -> None:
    async def resets(server: Server, sid: int) -> None:
        server.h2.reset_stream(sid, h2.errors.ErrorCodes.CANCEL)
        await server.flush()

    client, outcome = call_with(resets, tmp_path)
    assert isinstance(outcome, CallError)
    assert (outcome.end, outcome.status) == (CallEnd.BROKEN, "CANCELLED")
    assert client.serving()
    client.close()


def test_a_dropped_connection_is_a_broken_call(tmp_path: Path) -> None:
    async def hangs_up(server: Server, sid: int) -> None:
        server.sock.close()

    client, outcome = call_with(hangs_up, tmp_path)
    assert isinstance(outcome, CallError)
    assert (outcome.end, outcome.status) == (CallEnd.BROKEN, "UNAVAILABLE")
    assert not client.serving()


def test_frames_http2_forbids_are_a_broken_call(tmp_path: Path) -> None:
    data_on_stream_0 = (1).to_bytes(3, "big") + b"\x00\x00" + bytes(4) + b"x"

    async def babbles(server: Server, sid: int) -> None:
        await server.raw(data_on_stream_0)

    client, outcome = call_with(babbles, tmp_path)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.BROKEN
    assert "HTTP/2" in outcome.details and not client.serving()


def test_no_answer_by_the_deadline_is_a_deadline_and_drops_the_connection(
    tmp_path: Path,
) -> None:
    async def silent(server: Server, sid: int) -> None:
        await trio.sleep_forever()

    client, outcome = call_with(silent, tmp_path, timeout_s=0.2)
    assert isinstance(outcome, CallError) and outcome.end is CallEnd.DEADLINE
    assert not client.serving()


def test_the_call_after_a_goaway_connects_again(tmp_path: Path) -> None:
    connections = []

    async def answers_then_leaves(server: Server, sid: int) -> None:
        connections.append(server)
        await answers(server, sid)
        server.h2.close_connection()
        await server.flush()

    _, outcome = call_with(answers_then_leaves, tmp_path, calls=2)
    assert outcome == "scripted" and len(connections) == 2


def test_nothing_listening_is_a_broken_call(tmp_path: Path) -> None:
    client = BotClient(str(tmp_path / "nobody.sock"), LIMIT)
    with pytest.raises(CallError) as e:
        trio.run(client.start, START, 1.0)
    assert e.value.end is CallEnd.BROKEN and "cannot connect" in e.value.details


@pytest.mark.parametrize(
    ("code", "details", "end"),
    [
        (grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded", CallEnd.DEADLINE),
        (grpc.StatusCode.CANCELLED, "Cancelled", CallEnd.BROKEN),
        (grpc.StatusCode.UNAVAILABLE, "going away", CallEnd.BROKEN),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "the bot's own quota", CallEnd.STATUS),
        (grpc.StatusCode.INTERNAL, "boom", CallEnd.STATUS),
        (grpc.StatusCode.UNKNOWN, "ValueError: bad index", CallEnd.RAISED),
    ],
)
def test_each_grpc_status_maps_to_how_the_call_ended(
    code: grpc.StatusCode, details: str, end: CallEnd
) -> None:
    error = call_error(code, details)
    assert (error.end, error.status, error.details) == (end, code.name, details)


def test_an_answer_with_an_index_keeps_its_note() -> None:
    reply = reply_from_proto(bot_pb2.ActReply(index=0, note="hm"))
    assert (reply.index, reply.note) == (0, "hm")


def test_a_note_is_cut_at_200_characters() -> None:
    assert reply_from_proto(bot_pb2.ActReply(index=0, note="é" * 5000)).note == "é" * 200


def test_an_answer_with_an_action_is_decoded_from_json() -> None:
    assert reply_from_proto(bot_pb2.ActReply(action_json='{"a":[1,2]}')).action == {"a": [1, 2]}


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    assert json_depth('[{"a":"[[[[\\"]]]"}]') == 2


@pytest.mark.parametrize(
    ("reply", "message"),
    [(bot_pb2.ActReply(note="only a note"), "neither index nor action_json"),
     (bot_pb2.ActReply(action_json="{nope"), "not JSON")],
)
def test_an_answer_naming_nothing_usable_is_illegal(reply: Any, message: str) -> None:
    with pytest.raises(BotFailure, match=message) as e:
        reply_from_proto(reply)
    assert e.value.kind == Failure.ILLEGAL


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 1100 + "]" * 1100, "nests 1100 deep"),
        ('{"a":' * 5000 + "1" + "}" * 5000, "nests 5000 deep"),
        ("[" * 100_000, "characters"),
        ("9" * 5000, "5000 characters"),
        ("-" + "9" * 65, "66 characters"),
        ("1e999", "not finite"),
        ("[1.5e99999]", "not finite"),
        ("NaN", "NaN is not JSON"),
        ("-Infinity", "Infinity is not JSON"),
        ('"\\ud800"', "surrogate"),
        ('{"\\udfff":1}', "surrogate"),
        ('"unterminated [[[[', "not JSON"),
        ("\x00", "not JSON"),
        ("", "not JSON"),
    ],
)
def test_hostile_action_json_is_illegal_not_an_exception(text: str, message: str) -> None:
    with pytest.raises(BotFailure, match=message) as e:
        decode_action_json(text)
    assert e.value.kind == Failure.ILLEGAL
    assert "\n" not in e.value.detail and len(e.value.detail) < 300
    e.value.detail.encode("utf-8")


def test_action_json_at_the_limits_is_accepted() -> None:
    deep = "[" * 64 + "]" * 64
    assert decode_action_json(deep) is not None
    assert decode_action_json("9" * 64) == int("9" * 64)
    padded = '"' + "x" * (MAX_ACTION_CHARS - 2) + '"'
    assert decode_action_json(padded) == "x" * (MAX_ACTION_CHARS - 2)


def test_clip_makes_lone_surrogates_encodable() -> None:
    assert clip("a\ud800b") == "a?b"


class _Named(bot_pb2_grpc.BotServicer):
    """Answers ``Start`` with its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def Start(self, request: Any, context: grpc.ServicerContext) -> Any:
        return bot_pb2.StartReply(name=self.name, version="1")


def _serve(path: Path, name: str) -> grpc.Server:
    server = grpc.server(ThreadPoolExecutor(max_workers=1))
    bot_pb2_grpc.add_BotServicer_to_server(_Named(name), server)  # type: ignore[no-untyped-call]
    server.add_insecure_port(f"unix:{path}")
    server.start()
    return server


def test_a_new_bot_behind_a_reused_descriptor_number_is_reached_itself(tmp_path: Path) -> None:
    # Sandboxed bots are reached at /proc/self/fd/N, and N comes back for the next bot.
    # While an earlier bot's channel still exists (its call abandoned, not yet collected),
    # its failed connection must not be handed to the next bot's channel: with grpc's
    # global subchannel pool it was, and the next bot was DISCONNECTED before it began.
    start = GameStart("toy", "toy@1", 0, 2, {}, 1000, 1000, 7)
    earlier: list[BotClient] = []

    async def ask(client: BotClient) -> str:
        return (await client.start(start, 5.0))[0]

    try:
        for name in ("first", "second", "third"):
            path = tmp_path / f"{name}.sock"
            server = _serve(path, name)
            fd = os.open(path, os.O_PATH)
            client = BotClient(f"/proc/self/fd/{fd}", 1 << 20)
            earlier.append(client)
            try:
                assert trio.run(ask, client) == name
                server.stop(None).wait()  # the bot dies: its channel's connection fails
                with pytest.raises(CallError):
                    trio.run(ask, client)
            finally:
                os.close(fd)  # the next bot's socket gets the same number
    finally:
        for client in earlier:
            client.close()


class _Stalls(bot_pb2_grpc.BotServicer):
    """Never answers ``Act``: waits until the referee's side ends the call."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.ended = threading.Event()

    def Act(self, request: Any, context: grpc.ServicerContext) -> Any:
        context.add_callback(self.ended.set)
        self.asked.set()
        self.ended.wait(PATIENCE_S)
        return bot_pb2.ActReply(index=0)


def test_a_cancelled_ask_ends_its_call_at_the_bot(tmp_path: Path) -> None:
    stalls = _Stalls()
    server = grpc.server(ThreadPoolExecutor(max_workers=1))
    bot_pb2_grpc.add_BotServicer_to_server(stalls, server)  # type: ignore[no-untyped-call]
    server.add_insecure_port(f"unix:{tmp_path / 'bot.sock'}")
    server.start()
    client = BotClient(str(tmp_path / "bot.sock"), 1 << 20)
    question = Question(0, 0, {}, ["a"], 30_000, seed=1)

    async def ask_then_give_up() -> None:
        async with trio.open_nursery() as nursery:  # the match's nursery, in small
            nursery.start_soon(client.act, question, 30.0)
            await trio.to_thread.run_sync(stalls.asked.wait, PATIENCE_S)
            nursery.cancel_scope.cancel()

    try:
        trio.run(ask_then_give_up)
        assert stalls.ended.wait(PATIENCE_S), "the bot's side never saw its call end"
        assert not client.serving()  # the connection went with the call
    finally:
        client.close()
        server.stop(None).wait()


def test_random_http2_frames_from_the_server_always_end_in_a_classified_failure(
    tmp_path: Path,
) -> None:
    # Every frame type (and unknown ones) with random flags, stream ids and payloads,
    # after the server's settings: whatever h2 makes of them, the call ends in a
    # CallError or a BotFailure, never in another exception.
    rng = random.Random(7)

    def frame() -> bytes:
        payload = rng.randbytes(rng.choice((0, 1, 4, 5, 8, 9, 13, 64, 300)))
        stream = rng.choice((0, 1, 1, 1, 3, 2**31 - 1))
        kind = rng.choice((*range(10), 0xFA))
        return (
            len(payload).to_bytes(3, "big") + bytes([kind, rng.randrange(256)])
            + stream.to_bytes(4, "big") + payload
        )  # fmt: skip

    outcomes = []
    for case in range(150):
        frames = b"".join(frame() for _ in range(rng.randint(1, 6)))

        async def garbles(server: Server, sid: int, frames: bytes = frames) -> None:
            await server.raw(frames)

        (tmp_path / str(case)).mkdir()
        client, outcome = call_with(garbles, tmp_path / str(case), timeout_s=0.2)
        client.close()
        assert isinstance(outcome, CallError | BotFailure | str), repr(outcome)
        outcomes.append(type(outcome).__name__)
    assert "CallError" in outcomes


def test_a_questions_request_carries_the_observation_spelled_from_the_state() -> None:
    game = engine.load("sakura")
    state, _ = next((s, j) for s, j in playout(game, 4, 5) if s.to_move() != (engine.CHANCE,))
    seat = state.to_move()[0]
    question = make_question(3, seat, state, 900, 1000, 7)
    request = BotClient("unused", 1 << 20).act_request(question)
    assert request.observation_json == engine.canonical_json(state.observe(seat))
    assert request.legal_actions_json == [engine.canonical_json(a)
                                          for a in state.legal_actions(seat)]


def test_a_sealed_questions_observation_text_is_refused() -> None:
    state = engine.load("blossom").new_game(2)
    question = make_question(0, 0, state, 900, 1000, 7)
    question.seal()
    with pytest.raises(RuntimeError, match="after the bot answered"):
        question.observation_json()


def test_frames_are_counted_from_their_headers_however_the_reads_split_them() -> None:
    # An empty SETTINGS, a PING (8 bytes), a DATA of 20,000 bytes: headers at 0, 9, 26.
    stream = (
        (0).to_bytes(3, "big") + b"\x04\x00" + bytes(4)
        + (8).to_bytes(3, "big") + b"\x06\x00" + bytes(4) + b"p" * 8
        + (20_000).to_bytes(3, "big") + b"\x00\x00" + (1).to_bytes(4, "big") + bytes(20_000)
    )  # fmt: skip
    for cut in range(len(stream) + 1):
        a, b = socket.socketpair()
        with a, b:
            link = _Link(a, LIMIT)
            first = link.frames_in(stream[:cut])
            assert first == sum(1 for start in (0, 9, 26) if start + 9 <= cut)
            assert first + link.frames_in(stream[cut:]) == 3


def test_a_call_reading_more_frames_than_its_bound_is_illegal_before_h2_parses_them(
    tmp_path: Path,
) -> None:
    empty = (0).to_bytes(3, "big") + b"\xfa\x00" + bytes(4)  # unknown type: ignorable

    async def flood(server: Server, sid: int) -> None:
        await server.headers(sid)
        with trio.move_on_after(10):
            await server.raw(empty * (MAX_CALL_FRAMES * 5))
            await server.message(sid, start_reply())
            await server.trailers(sid)

    client, outcome = call_with(flood, tmp_path)
    assert isinstance(outcome, BotFailure) and outcome.kind is Failure.ILLEGAL
    assert outcome.detail == (
        f"your server sent more than {MAX_CALL_FRAMES} HTTP/2 frames in one call"
    )
    assert client.traffic.frames <= MAX_CALL_FRAMES


def test_a_call_reading_its_answer_in_more_pieces_than_its_bound_is_illegal() -> None:
    # A server that writes one byte at a time wakes the referee once per byte: each
    # byte here is written just before the client's next read, so each read gets one.
    settings = (0).to_bytes(3, "big") + b"\x04\x00" + bytes(4)
    unknown = (4000).to_bytes(3, "big") + b"\xfa\x00" + bytes(4) + b"x" * 4000
    a, b = socket.socketpair()

    async def main() -> BotFailure:
        link = _Link(a, LIMIT)
        call = _Call(1, LIMIT, LIMIT + MAX_CALL_BYTES_OVER, _Meter())
        for piece in [settings, *(unknown[i : i + 1] for i in range(len(unknown)))]:
            b.send(piece)
            try:
                await link.receive(call)
            except BotFailure as e:
                assert call.meter.reads == MAX_CALL_READS + 1
                return e
        raise AssertionError("every piece was read")

    with a, b:
        failure = trio.run(main)
    assert failure.kind is Failure.ILLEGAL
    assert failure.detail == (
        f"your server sent more than {MAX_CALL_READS} pieces (socket reads) in one call"
    )
