"""The gRPC edge: reading one reply from a call, and what a raw answer turns into."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from niwa.v1 import bot_pb2
from referee.failures import BotFailure, Failure, clip
from referee.transport import (
    MAX_ACTION_CHARS,
    CallError,
    _Malformed,
    _read_one,
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


def test_a_status_becomes_a_call_error_with_its_code() -> None:
    with pytest.raises(CallError) as e:
        _read_one(FakeStream(error=Unavailable()))
    assert e.value.code == grpc.StatusCode.UNAVAILABLE and e.value.details == "socket closed"


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
