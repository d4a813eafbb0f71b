"""The gRPC edge: reading one reply from a call, and what a raw answer turns into."""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
import trio

from bots.sdk import GameStart
from bots.server import _Servicer
from niwa_proto.v1 import bot_pb2, bot_pb2_grpc
from referee.failures import BotFailure, Failure, clip
from referee.players import Question
from referee.transport import (
    MAX_ACTION_CHARS,
    BotClient,
    CallEnd,
    CallError,
    _Malformed,
    _read_one,
    call_error,
    decode_action_json,
    json_depth,
    reply_from_proto,
)


class FakeStream:
    """Stands in for grpc's call object read as a stream: yields replies, then ends
    or raises a status; records cancellation."""

    def __init__(self, *replies: Any, error: Exception | None = None) -> None:
        self._replies: Iterator[Any] = iter(replies)
        self._error = error
        self.cancelled = False

    def __iter__(self) -> FakeStream:
        return self

    def __next__(self) -> Any:
        for reply in self._replies:
            return reply
        if self._error is not None:
            raise self._error
        raise StopIteration

    def cancel(self) -> bool:
        self.cancelled = True
        return True


class Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "socket closed"


def test_a_single_reply_is_returned() -> None:
    assert _read_one(FakeStream("answer")) == "answer"


def test_a_second_reply_is_illegal_and_cancels_the_call() -> None:
    call = FakeStream("one", "two")
    with pytest.raises(BotFailure, match="two replies") as e:
        _read_one(call)
    assert e.value.kind == Failure.ILLEGAL and call.cancelled


def test_a_call_that_ends_without_a_reply_is_illegal() -> None:
    with pytest.raises(BotFailure, match="without a reply") as e:
        _read_one(FakeStream())
    assert e.value.kind == Failure.ILLEGAL


def test_a_reply_that_does_not_parse_is_illegal() -> None:
    with pytest.raises(BotFailure, match="not a valid message") as e:
        _read_one(FakeStream(_Malformed("DecodeError: truncated")))
    assert e.value.kind == Failure.ILLEGAL


def test_a_dropped_connection_becomes_a_broken_call_with_its_status_name() -> None:
    with pytest.raises(CallError) as e:
        _read_one(FakeStream(error=Unavailable()))
    assert (e.value.end, e.value.status, e.value.details) == (
        CallEnd.BROKEN, "UNAVAILABLE", "socket closed"
    )


@pytest.mark.parametrize(
    ("code", "details", "end"),
    [
        (grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded", CallEnd.DEADLINE),
        (grpc.StatusCode.CANCELLED, "Cancelled", CallEnd.BROKEN),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "Received message larger than max", CallEnd.TOO_LARGE),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "the bot's own quota", CallEnd.STATUS),
        (grpc.StatusCode.INTERNAL, "boom", CallEnd.STATUS),
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


class _Named:
    version = "1"

    def __init__(self, name: str) -> None:
        self.name = name

    def act(self, turn: Any) -> int:
        return 0


def _serve(path: Path, name: str) -> grpc.Server:
    server = grpc.server(ThreadPoolExecutor(max_workers=1))
    bot_pb2_grpc.add_BotServicer_to_server(_Servicer(_Named(name)), server)  # type: ignore[no-untyped-call]
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
        self.ended.wait(30)
        return bot_pb2.ActReply(index=0)


def _threads_reading_a_call() -> int:
    """How many threads are inside the transport's reader right now."""
    return sum(
        any(f.f_code is _read_one.__code__ for f, _ in traceback.walk_stack(frame))
        for frame in sys._current_frames().values()
    )


def test_a_cancelled_ask_ends_its_call_and_leaves_no_thread_reading_it(tmp_path: Path) -> None:
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
            await trio.to_thread.run_sync(stalls.asked.wait, 10)
            nursery.cancel_scope.cancel()

    try:
        trio.run(ask_then_give_up)
        assert stalls.ended.wait(10), "the bot's side never saw its call end"
        for _ in range(1000):  # the reader returns once grpc hands it the cancellation
            if not _threads_reading_a_call():
                break
            time.sleep(0.01)
        assert _threads_reading_a_call() == 0
    finally:
        client.close()
        server.stop(None).wait()
