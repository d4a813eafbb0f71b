"""The web page of one local match (``niwa play --web HOST:PORT``): the match live while
it runs, read from the replay file the referee is writing (:mod:`niwa.web.live`), then its
full replay, served until the command is stopped.

:func:`local_app` takes extra routes, so another page of the same match (a human
seat's, say) is served by the same server; :func:`serve` runs it in a thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import anyio
import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from niwa.ladder.http_server import STOP_POLL_S, serve_in_thread
from niwa.referee import replay as replays
from niwa.web import events, live
from niwa.web.app import HERE, _Site, renderer_route
from niwa.web.offline import embed_json
from niwa.web.replay_view import replay_payload

#: The page's live events, under this path.
LIVE_PATH = "/live"
#: Watchers of a local match at once (browser tabs).
LOCAL_STREAMS = 16
#: How often a stream looks for the replay file before the referee has started it.
FILE_POLL_S = 0.1


def local_app(replay: Path, title: str, routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The app of the match whose replay the referee writes at ``replay``: ``/`` shows it
    (live, then the full replay), ``routes`` are served beside."""
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
        undefined=jinja2.StrictUndefined,
    )  # fmt: skip
    hub, streams = live.Hub(), events.Streams(LOCAL_STREAMS)

    def page(request: Request) -> Response:
        payload = None
        try:
            parsed = replays.read(replay)
            if parsed.result is not None:
                payload = Markup(embed_json(replay_payload(parsed)))
        except replays.ReplayError:  # not there yet, or a line half written: still live
            pass
        html = templates.get_template("local.html").render(
            title=title, payload=payload, live_url=LIVE_PATH
        )
        return HTMLResponse(html)

    async def stream(after: int) -> AsyncIterator[str]:
        while not replay.exists():  # the referee starts the seats before it writes
            await anyio.sleep(FILE_POLL_S)
        async for text in hub.watch(replay, after):
            yield text

    def live_events(request: Request) -> Response:
        last = request.headers.get("last-event-id", "")
        after = int(last) if last.isdigit() and len(last) < 10 else -1
        return streams.serve(stream(after), "close another tab of this match")

    return _Site(routes=[
        Route("/", page),
        Route(LIVE_PATH, live_events),
        renderer_route(),
        *routes,
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ])  # fmt: skip


class LocalPage:
    """``niwa play --web``'s server: started before the match, serving its replay after
    it until Ctrl-C (:meth:`close`)."""

    def __init__(self, replay: Path, title: str, listen: str,
                 routes: Sequence[BaseRoute] = ()) -> None:  # fmt: skip
        self.stop = threading.Event()
        app = local_app(replay, title, routes)
        address, self.thread = serve_in_thread(app, listen, self.stop, "the match's page")
        self.url = f"{address}/"

    def close(self, wait: bool) -> None:
        """Stop serving; with ``wait``, first serve on until Ctrl-C."""
        try:
            while wait and not self.stop.is_set():
                time.sleep(STOP_POLL_S)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop.set()
            self.thread.join()
