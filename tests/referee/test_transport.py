"""The gRPC edge: futures wrapped for trio, and what a raw answer turns into."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
import trio

from niwa.v1 import bot_pb2
from referee.failures import BotFailure, Failure
from referee.transport import CallError, _await, reply_from_proto


class FakeCall:
    """Stands in for a grpc future: completes when told to, records cancellation."""

    def __init__(self) -> None:
        self.callbacks: list[Callable[[Any], None]] = []
        self.cancelled = False
        self.outcome: Any = None
        self.done = False

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        if self.done:  # as grpc does: a finished call runs the callback at once
            callback(self)
        else:
            self.callbacks.append(callback)

    def cancel(self) -> bool:
        self.cancelled = True
        return True

    def complete(self, outcome: Any) -> None:
        self.outcome = outcome
        self.done = True
        for callback in self.callbacks:
            callback(self)

    def result(self) -> Any:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


class Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "socket closed"


def test_a_completed_call_returns_its_result() -> None:
    async def main() -> Any:
        call = FakeCall()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, call.complete, "answer")
            return await _await(call)  # type: ignore[arg-type]

    assert trio.run(main) == "answer"


def test_trio_cancellation_cancels_the_grpc_call() -> None:
    call = FakeCall()

    async def main() -> None:
        with trio.move_on_after(0):
            await _await(call)  # type: ignore[arg-type]

    trio.run(main)
    assert call.cancelled


def test_a_failed_call_becomes_a_call_error_with_its_status() -> None:
    async def main() -> None:
        call = FakeCall()
        call.complete(Unavailable())
        await _await(call)  # type: ignore[arg-type]

    with pytest.raises(CallError) as e:
        trio.run(main)
    assert e.value.code == grpc.StatusCode.UNAVAILABLE and e.value.details == "socket closed"


def test_an_answer_with_an_index_keeps_its_note() -> None:
    reply = reply_from_proto(bot_pb2.ActReply(index=0, note="hm"))
    assert (reply.index, reply.note) == (0, "hm")


def test_an_answer_with_an_action_is_decoded_from_json() -> None:
    assert reply_from_proto(bot_pb2.ActReply(action_json='{"a":[1,2]}')).action == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("reply", "message"),
    [(bot_pb2.ActReply(note="only a note"), "neither index nor action_json"),
     (bot_pb2.ActReply(action_json="{nope"), "not JSON")],
)
def test_an_answer_naming_nothing_usable_is_illegal(reply: Any, message: str) -> None:
    with pytest.raises(BotFailure, match=message) as e:
        reply_from_proto(reply)
    assert e.value.kind == Failure.ILLEGAL
