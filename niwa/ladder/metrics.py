"""The ladder's Prometheus metrics (docs/operations.md lists them with their meanings).

Every metric is counted in the process that knows the fact: matches, failures and
durations in the runner's process when it records a result (never in a worker process,
whose counts would die with it), API latencies and refusals in the API server's thread,
page latencies in the web front. Labels are bounded sets only (games, failure classes,
methods, route templates, refusal reasons): never a bot's name or a match id.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from niwa.referee.failures import Failure, SeatStatus

if TYPE_CHECKING:
    from niwa.ladder.store import Finished

# A *_created series per counter would double what is scraped for no use here.
disable_created_metrics()  # type: ignore[no-untyped-call]  # prometheus_client leaves it untyped

_FAILURES = frozenset(f.value for f in Failure)

#: Match wall times run from under a second (random bots) to many minutes.
MATCH_BUCKETS = (0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 3600)
#: API calls and pages: milliseconds when healthy, seconds when the store struggles.
CALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

QUEUE_DEPTH = Gauge("niwa_queue_depth", "Matches queued and not yet running (the leader's view)")
MATCHES_FINISHED = Counter(
    "niwa_matches_finished", "Matches recorded as finished", ["game", "kind"]
)
SEAT_FAILURES = Counter(
    "niwa_seat_failures", "Seats that went out of a recorded match, by failure class",
    ["game", "failure"],
)  # fmt: skip
MATCH_ERRORS = Counter(
    "niwa_match_errors", "Matches the referee could not run (no bot's fault)", ["game"]
)
MATCH_DURATION = Histogram(
    "niwa_match_duration_seconds", "Wall time of each recorded match", ["game"],
    buckets=MATCH_BUCKETS,
)  # fmt: skip
LEADER = Gauge("niwa_runner_leader", "1 while this runner holds the lease and plays, else 0")
RAY_NODES = Gauge("niwa_ray_nodes", "Alive nodes of the Ray cluster, as last seen")
RAY_NODES_REFUSED = Gauge(
    "niwa_ray_nodes_refused", "Ray nodes that refused matches (sent none since)"
)
RAY_NODES_LOST = Counter("niwa_ray_nodes_lost", "Ray nodes seen alive, then gone")
API_LATENCY = Histogram(
    "niwa_api_call_seconds", "Time to answer an API call (unary replies only)", ["method"],
    buckets=CALL_BUCKETS,
)  # fmt: skip
ADMISSION_REFUSALS = Counter(
    "niwa_admission_refusals", "API calls refused by admission control", ["reason"]
)
PAGE_LATENCY = Histogram(
    "niwa_web_request_seconds", "Time to answer a web request, by route", ["route"],
    buckets=CALL_BUCKETS,
)  # fmt: skip
DATABASE_UP = Gauge("niwa_database_up", "1 if the store answered this process's last check")


def count_recorded(game: str, kind: str, finished: Finished) -> None:
    """A match the runner just recorded: its game's count, duration and failed seats."""
    MATCHES_FINISHED.labels(game, kind).inc()
    MATCH_DURATION.labels(game).observe(finished.wall_s)
    for seat in finished.results:
        if seat.status != SeatStatus.OK:  # the class only: a detail would be unbounded
            failure = seat.reason if seat.reason in _FAILURES else "OTHER"
            SEAT_FAILURES.labels(game, failure).inc()


def set_leading(leading: bool) -> None:
    LEADER.set(1 if leading else 0)
    if not leading:  # the queue is the leader's to report; a stale figure would mislead
        QUEUE_DEPTH.set(0)


def exposition(_: Request | None = None) -> Response:
    """``/metrics``: every metric of this process in Prometheus' text format."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


# -- the web front ---------------------------------------------------------------------


class PageTimer:
    """ASGI middleware: each HTTP request's time, labelled by the route's template
    (``/bots/{bot_id:int}``, never the id itself); a path no route takes is "other".
    An event stream is timed until its response starts, not for as long as it runs."""

    def __init__(self, app: ASGIApp, routes: Iterable[BaseRoute]) -> None:
        self.app = app
        self.routes = list(routes)

    def route(self, scope: Scope) -> str:
        for route in self.routes:
            matched, _ = route.matches(scope)
            if matched is Match.FULL:
                return str(getattr(route, "path", "other"))
        return "other"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        timer = PAGE_LATENCY.labels(self.route(scope))
        started = time.perf_counter()
        timed = False

        async def sending(message: Any) -> None:
            nonlocal timed
            if message["type"] == "http.response.start" and not timed:
                timed = True
                timer.observe(time.perf_counter() - started)
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if not timed:
                timer.observe(time.perf_counter() - started)
