"""The page a person plays a seat on (``niwa play GAME --human``): a Starlette app over
the seat's :class:`niwa.referee.human.Desk`, served by Hypercorn's trio worker in the
match's own trio run.

- ``GET /play/{key}``: the page (the game's renderer draws the seat's observation;
  ``/static/human.js`` makes its board parts clickable and lists the moves in words);
- ``GET /play/{key}/events``: server-sent events, each the desk's snapshot: only what
  the seat may see (its observation, its own legal moves, its clock, the result);
- ``POST /play/{key}/move``: ``{"decision": D, "index": I}``, checked against the
  question waiting (409 naming why when stale or repeated).

``key`` is a random token made per match: only whoever has the printed URL can see
or act for the seat. A page is counted as open while its event stream is; the desk
puts the seat out (DISCONNECTED) when none is open for its grace period while it is
asked to move.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jinja2
import trio
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from niwa import engine
from niwa.engine import JSON
from niwa.ladder.http_server import address, config
from niwa.referee.human import AnswerRefused, Desk
from niwa.web.app import HERE, renderer_module
from niwa.web.replay_view import RENDERER_URL
from niwa.web.security import SecurityHeaders

#: Seconds between keep-alive comments on an idle event stream (a closed tab is noticed
#: at the next write at the latest).
KEEPALIVE_S = 10.0
#: Longest a move request's body may be.
MAX_BODY = 256
#: After the match, how long the server waits for an open page to get the final board.
LINGER_S = 10.0


@dataclass
class Table:
    """The match a person sits at: the game, who sits where, and the human seats' desks
    by their secret keys."""

    game: str
    names: list[str]
    desks: dict[str, Desk] = field(default_factory=dict)

    def seat(self, desk: Desk) -> str:
        """A new secret key for ``desk``: the path its page is served at."""
        key = secrets.token_urlsafe(18)
        self.desks[key] = desk
        return key

    async def delivered(self, seconds: float = LINGER_S) -> None:
        """Wait (at most ``seconds``) until every page still open has closed its event
        stream, which it does once it has the final snapshot: the person sees the
        final board and result before the server stops."""
        with trio.move_on_after(seconds):
            while any(d.pages for d in self.desks.values()):
                await trio.sleep(0.05)


#: The table of the seat whose page's key a request names (None: no seat is played
#: at that key, or not for whoever asks).
Seating = Callable[[Request, str], "Table | None"]


def human_app(table: Table) -> SecurityHeaders:
    """The pages of ``niwa play --human``: the seats of one table."""
    routes = [
        *human_routes(lambda request, key: table if key in table.desks else None),
        Route(RENDERER_URL.replace("{game}", "{game:str}"), renderer_module),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return SecurityHeaders(Starlette(routes=routes))


def human_routes(seating: Seating) -> list[Route]:
    """A seat's page, its event stream and its moves, for every key ``seating`` knows:
    one table's (``niwa play --human``) or the ladder's challenges
    (:mod:`niwa.web.challenge`)."""
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
        undefined=jinja2.StrictUndefined,
    )  # fmt: skip

    def seat(request: Request) -> tuple[str, Table, Desk]:
        key = request.path_params["key"]
        table = seating(request, key)
        desk = None if table is None else table.desks.get(key)
        if table is None or desk is None:
            raise HTTPException(
                404, "no seat is played at this address: use the URL niwa play printed, "
                "or challenge the bot again from its page",
            )  # fmt: skip
        return key, table, desk

    def page(request: Request) -> HTMLResponse:
        key, table, desk = seat(request)
        game = engine.load(table.game)
        html = templates.get_template("human.html").render(
            game=table.game, seat=desk.seat, names=table.names, key=key,
            renderer=RENDERER_URL.format(game=table.game) if game.renderer_asset() else "",
            glossary=dict(game.glossary() or {}),  # the renderers' words for card and goal ids
        )  # fmt: skip
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    async def events(request: Request) -> Response:
        _, _, desk = seat(request)

        async def stream() -> AsyncIterator[str]:
            desk.connect()
            try:
                seen = -1
                while True:
                    if desk.version != seen:
                        seen = desk.version
                        snapshot = desk.snapshot()  # the page closes the stream once closed
                        yield f"data: {json.dumps(snapshot, separators=(',', ':'))}\n\n"
                    with trio.move_on_after(KEEPALIVE_S) as idle:
                        await desk.changed_since(seen)
                    if idle.cancelled_caught:
                        yield ": still here\n\n"
            finally:
                desk.disconnect()

        return StreamingResponse(
            stream(), media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )  # fmt: skip

    async def move(request: Request) -> JSONResponse:
        _, _, desk = seat(request)
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
            return JSONResponse({"error": "a move comes from the seat's own page only"}, 403)
        body = b""
        async for chunk in request.stream():  # refused past MAX_BODY, not read to its end
            body += chunk
            if len(body) > MAX_BODY:
                break
        decision, index = _parse_move(body)
        try:
            desk.answer(decision, index)
        except AnswerRefused as e:
            return JSONResponse({"error": str(e)}, 409)
        return JSONResponse({"ok": True})

    return [
        Route("/play/{key}", page),
        Route("/play/{key}/events", events),
        Route("/play/{key}/move", move, methods=["POST"]),
    ]


def _parse_move(body: bytes) -> tuple[int, int]:
    """``{"decision": D, "index": I}``, both integers; a 400 naming what is wrong."""
    if len(body) > MAX_BODY:
        raise HTTPException(400, f"a move is at most {MAX_BODY} bytes of JSON")
    try:
        data: JSON = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, 'send the move as JSON: {"decision": D, "index": I}') from None
    if not isinstance(data, dict):
        raise HTTPException(400, 'send the move as JSON: {"decision": D, "index": I}')
    values = [data.get("decision"), data.get("index")]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise HTTPException(400, "decision and index must both be integers")
    return int(values[0]), int(values[1])  # type: ignore[arg-type]


async def serve_table(
    table: Table, listen: str, *, task_status: Any = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve ``table``'s pages on ``listen`` (``HOST:PORT``; port 0: a free one) until
    cancelled; ``task_status.started`` gets the base URL once listening."""
    asgi: Any = human_app(table)
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve, asgi, config(listen)))
        task_status.started(address(binds))
