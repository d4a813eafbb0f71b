"""The match list's live updates: server-sent events of the matches finishing.

Each stream asks the store for its newest finish number at most once a second
(``POLL_S``) and sends the matches finished after the last one it sent; a comment line
keeps idle connections open through proxies. Streams are bounded (``Streams``): one over
the limit gets a 503 and the page keeps its refresh button.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import structlog
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from niwa.ladder.db import DatabaseError
from niwa.ladder.reads import Reads
from niwa.ladder.views import MatchView

POLL_S = 1.0
KEEPALIVE_S = 15.0
#: The browser waits this long before reconnecting a dropped stream.
RETRY_MS = 3000

log = structlog.get_logger("niwa.web")


def event(match: MatchView) -> str:
    """One SSE event: the fields the match list's row shows (names are escaped by the
    page, which sets them as text)."""
    data = {
        "id": match.id, "game": match.game, "kind": match.kind, "state": match.state,
        "seq": match.seq, "decisions": match.decisions, "finished_at": match.finished_at,
        "results": [
            {"bot_id": r.bot_id, "bot": r.bot, "place": r.place + 1, "status": r.status,
             "failure": r.failure}
            for r in sorted(match.results, key=lambda r: (r.place, r.seat))
        ],
    }  # fmt: skip
    return f"id: {match.seq}\nevent: match\ndata: {json.dumps(data)}\n\n"


class Streams:
    """The open streams, at most ``limit``: each counts from its response until the
    response ends (the client went away, or the server stops)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0

    def respond(self, reads: Reads, game: str, after: int) -> Response:
        return self.serve(_stream(reads, game or None, after))

    def serve(
        self, content: AsyncIterator[str], instead: str = "refresh the page instead"
    ) -> Response:
        """``content`` as an event stream, or a 503 saying what to do ``instead`` when
        ``limit`` streams are open (``content`` is then never started)."""
        if self.open >= self.limit:
            return PlainTextResponse(f"{self.limit} live streams are open already: {instead}", 503)
        self.open += 1
        return _Counted(self, content)


class _Counted(StreamingResponse):
    def __init__(self, streams: Streams, content: AsyncIterator[str]) -> None:
        super().__init__(
            content, media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )  # fmt: skip
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.streams.open -= 1


async def _stream(reads: Reads, game: str | None, after: int) -> AsyncIterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    try:
        async for text in _events(reads, game, after):
            yield text
    except DatabaseError as e:  # the server away: end here, the browser comes back later
        log.error("stream_store_unavailable", error=str(e))


async def _events(reads: Reads, game: str | None, after: int) -> AsyncIterator[str]:
    idle = 0.0
    while True:
        head = await anyio.to_thread.run_sync(reads.head)
        while head > after:
            found = await anyio.to_thread.run_sync(reads.finished_after, game, after)
            for match in found:
                yield event(match)
            # finished_after skips other games' matches: move past the batch it read
            after = found[-1].seq if found else head
            idle = 0.0
        if idle >= KEEPALIVE_S:
            yield ": still here\n\n"
            idle = 0.0
        await anyio.sleep(POLL_S)
        idle += POLL_S
