"""The match list's server-sent events, read as a client would (over ASGI)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import pytest
from starlette.responses import Response
from starlette.types import Message

from niwa.ladder.reads import Reads
from niwa.web import events
from niwa.web.server import open_read_only
from tests.web.ladders import played_store

SCOPE = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "method": "GET"}


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reads]:
    store = open_read_only(str(played_store(tmp_path_factory.mktemp("ladder"), matches=3)))
    try:
        yield Reads(store)
    finally:
        store.close()


async def read(response: Response, count: int) -> list[str]:
    """The first ``count`` chunks of the body; then the client goes away."""
    chunks: list[str] = []
    enough = anyio.Event()

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            chunks.append(message["body"].decode())
            if len(chunks) >= count:
                enough.set()

    async def receive() -> Message:
        await enough.wait()
        return {"type": "http.disconnect"}

    await response(SCOPE, receive, send)
    return chunks


def test_a_stream_sends_the_matches_finished_after_the_given_one(reads: Reads) -> None:
    head = reads.head()
    chunks = anyio.run(read, events.Streams(2).respond(reads, "", head - 2), 3)
    assert chunks[0].startswith("retry: ")
    sent = [json.loads(c.split("data: ", 1)[1]) for c in chunks[1:]]
    assert [m["seq"] for m in sent] == [head - 1, head]
    assert chunks[1].startswith(f"id: {head - 1}\nevent: match\n")


def test_a_stream_over_the_limit_is_refused(reads: Reads) -> None:
    streams = events.Streams(1)
    first = streams.respond(reads, "", 0)
    assert streams.respond(reads, "", 0).status_code == 503
    anyio.run(read, first, 1)


def test_a_stream_the_client_left_frees_its_place(reads: Reads) -> None:
    streams = events.Streams(1)
    anyio.run(read, streams.respond(reads, "", 0), 1)
    assert streams.open == 0
    assert streams.respond(reads, "", 0).status_code == 200
