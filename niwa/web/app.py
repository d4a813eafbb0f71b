"""The ladder's web pages: a Starlette app over one store's reads (``niwa.ladder.reads.Reads``).

Every route is a GET: the server never writes (``niwa ladder web`` even opens the store
read-only). Pages render with Jinja2 (autoescaped: names, versions, notes and reasons
are bot owners' text); every list has a bounded page size, and a bad query parameter
is a 400 with one line saying why. The match list's live updates are server-sent events
(:mod:`niwa.web.events`); the pages' scripts are ES modules under ``/static``, and a strict
Content-Security-Policy (:mod:`niwa.web.security`) allows nothing but this origin's.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import structlog
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from niwa import engine
from niwa.ladder import balance_report, forks, health, metrics, report, seat_stats, skill
from niwa.ladder.challenges import (
    RATED_CHOICE,
    UNRATED_CHOICE,
    Challenges,
    are_rated,
    table_size,
)
from niwa.ladder.db import UNAVAILABLE, DatabaseError
from niwa.ladder.health import StoreCheck
from niwa.ladder.inputs import MAX_ID, MAX_TEXT, check_text, parse_number
from niwa.ladder.reads import MAX_SEASONS, NotFound, Reads, ReplayTampered, bot_view, season_view
from niwa.ladder.statuses import BotStatus, MatchKind, MatchState
from niwa.ladder.store import ACTIVE, DONE, HUMAN_SOURCE, Bot, Match, Store, StoreError
from niwa.ladder.views import LadderBot, LeaderboardRow, MatchQuery, MatchView, SeatLog
from niwa.referee import replay as replay_file
from niwa.web import events, fork, live, live_ladder, plots, signin, upload
from niwa.web.balance_page import balance_page_context
from niwa.web.offline import embed_json
from niwa.web.replay_view import RENDERER_URL, replay_payload
from niwa.web.security import SecurityHeaders
from niwa.web.tallies import Tallies

HERE = Path(__file__).parent
#: Rows per page: leaderboard, match list (the default and the most a page may ask).
BOARD_PAGE = 50
MATCH_PAGE, MAX_MATCH_PAGE = 25, 100
#: Lines drawn in a game's rating history: the page's best bots.
HISTORY_LINES = 10
#: Head-to-head rows and failures shown on a bot page.
BOT_ROWS = 50
#: Replay payloads kept in memory (a replay never changes once its match finished).
PAYLOADS_KEPT = 16
MAX_PAGE_NUMBER = 10_000
#: Seconds a client is asked to wait while the store's server does not answer.
RETRY_AFTER_S = 5
#: Live views of running matches open at once (each is a stream; niwa.web.live).
LIVE_STREAMS = 256

log = structlog.get_logger("niwa.web")


class Site:
    """What the routes share: the reads, the tallies, the payload cache."""

    def __init__(self, reads: Reads, max_streams: int, live_delay: int = 0) -> None:
        self.reads = reads
        self.hub = live.Hub(live_delay)
        self.live_streams = events.Streams(LIVE_STREAMS)
        self.tallies = Tallies()
        self.payloads: OrderedDict[int, Markup] = OrderedDict()  # match id -> its JSON
        # (owner id, match id) -> the owner's copy: a signed-in owner's match pages cost a
        # re-simulation once, not at every request
        self.owner_payloads: OrderedDict[tuple[int, int], Markup] = OrderedDict()
        self._payloads_lock = threading.Lock()  # pages are served from worker threads
        self.streams = events.Streams(max_streams)
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        self.templates.filters["place"] = _place
        self.templates.filters["utc"] = _utc
        self.templates.filters["signed"] = report.signed
        # the templates name statuses through the enums too, never as spelled strings
        self.templates.globals.update(
            BotStatus=BotStatus, MatchState=MatchState, MatchKind=MatchKind,
            HUMAN_SOURCE=HUMAN_SOURCE, PROVISIONAL_SIGMA=skill.PROVISIONAL_SIGMA,
        )  # fmt: skip
        self.templates.globals["csrf_field"] = signin.csrf_field
        self.signin_served = False
        self.challenges_served = False

    def render(
        self, template: str, request: Request, status: int = 200, **context: Any
    ) -> HTMLResponse:
        """A page; its header names the signed-in owner (or links to sign-in)."""
        context.setdefault("games", sorted(self.reads.ladder_games))
        context.update(request=request, viewer=signin.viewer(request),
                       signin_served=self.signin_served)  # fmt: skip
        return HTMLResponse(self.templates.get_template(template).render(**context), status)

    def owner_payload(self, reads: Reads, match_id: int) -> Markup:
        """The viewer's payload of the replay as ``reads``' viewer (a signed-in owner)
        may read it: their own seats' debug text and thinking kept. Kept apart from the
        public copies, by owner."""
        assert reads.viewer is not None
        return self._kept(self.owner_payloads, (reads.viewer.id, match_id), reads, match_id)

    def payload(self, match_id: int) -> Markup:
        """The viewer's public payload (no debug text, notes cut), refused if the replay
        changed on disk."""
        return self._kept(self.payloads, match_id, self.reads, match_id)

    def _kept(
        self, cache: OrderedDict[Any, Markup], key: Any, reads: Reads, match_id: int
    ) -> Markup:
        """A payload as JSON safe inside a script element, from ``cache`` or built (outside
        the lock: two first opens of one match may both build it)."""
        with self._payloads_lock:
            kept = cache.get(key)
            if kept is not None:
                cache.move_to_end(key)
                return kept
        found = reads.replay(match_id)
        parsed = replay_file.parse(found.content, f"the replay of match {match_id}")
        kept = Markup(embed_json(replay_payload(parsed)))
        with self._payloads_lock:
            cache[key] = kept
            while len(cache) > PAYLOADS_KEPT:
                cache.popitem(last=False)
        return kept


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def _place(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def number(request: Request, name: str, default: int, low: int, high: int) -> int:
    """An integer query parameter in [low, high]; anything else is a 400 (a StoreError)."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    return parse_number(name, text, low, high)


def text(request: Request, name: str) -> str:
    """A text query parameter: over :data:`MAX_TEXT` characters or with a NUL is a 400."""
    return check_text(name, request.query_params.get(name, ""), MAX_TEXT)


class _Site(Starlette):
    """The app with :class:`SecurityHeaders` outside Starlette's own error middleware,
    so its 500s carry the headers too (``add_middleware`` would put them inside)."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def create_app(
    store: Store,
    games: Iterable[str] | None = None,
    max_streams: int = 32,
    check: StoreCheck | None = None,
    live_delay: int = 0,
    writer: Store | None = None,
    signin_limits: signin.SigninLimits | None = None,
    challenges: Challenges | None = None,
) -> Starlette:
    """The web app over ``store``, read through anonymous :class:`Reads`: no stderr,
    and replays (the viewer's and the download) without debug text, notes cut.
    ``check``: serve /healthz, /readyz and /metrics too (:mod:`niwa.ladder.health`).
    ``writer``: a connection that may write, for owners to sign in (:mod:`niwa.web.signin`)
    and read their own bots' private text; without one the pages are anonymous only.
    ``challenges``: signed-in owners may challenge active bots and play them on
    these pages (:mod:`niwa.web.challenge`)."""
    site = Site(Reads(store, games), max_streams, live_delay)
    site.challenges_served = challenges is not None

    def index(request: Request) -> Response:
        season = site.reads.season(text(request, "season"))
        boards = site.reads.leaderboards(season_name=season.name)
        return site.render("index.html", request, boards=boards, season=season_view(season))

    def leaderboard(request: Request) -> Response:
        game = request.path_params["game"]
        page = number(request, "page", 1, 1, MAX_PAGE_NUMBER)
        season = season_view(site.reads.season(text(request, "season")))
        boards = site.reads.leaderboards(game, season.name)
        if not boards:  # an ended season in which nobody played this game
            raise HTTPException(404, f"the {game} ladder had no bots in season {season.name}")
        board = boards[0]
        pages = max(1, math.ceil(len(board.rows) / BOARD_PAGE))
        if page > pages:
            raise HTTPException(404, f"page {page}: the {game} leaderboard has {pages}")
        rows = board.rows[(page - 1) * BOARD_PAGE : page * BOARD_PAGE]
        intervals = plots.intervals([plots.Interval(_label(r.bot), r.elo, r.ci95) for r in rows])
        history, tallies = None, None
        if season.current:  # an ended season's table stands alone: frozen at its end
            site.tallies.catch_up(site.reads)
            shown = rows[:HISTORY_LINES]
            lines = site.reads.rating_history(game, [r.bot.id for r in shown])
            history = plots.history({_label(r.bot): lines.get(r.bot.id, []) for r in shown})
            tallies = {r.bot.id: site.tallies.get(r.bot.id) for r in rows}
        counts = sorted({p.players for r in rows for p in r.by_players})
        by_count = {r.bot.id: {p.players: p for p in r.by_players} for r in rows}
        seat_effects = [(s, report.seat_effect(s)) for s in board.seat_effects]
        return site.render(
            "leaderboard.html", request, board=board, rows=rows, tallies=tallies, page=page,
            pages=pages, history=history, intervals=intervals, finite=math.isfinite, season=season,
            counts=counts, by_count=by_count, seat_effects=seat_effects,
            rating_name=report.RATING_NAMES.get(board.rating, board.rating),
        )  # fmt: skip

    def balance_page(request: Request) -> Response:
        found = _balance(site, request.path_params["game"])
        return site.render("balance.html", request, **balance_page_context(found))

    def balance_json(request: Request) -> Response:
        try:
            found = _balance(site, request.path_params["game"])
        except HTTPException as e:  # a JSON reader gets its error as JSON
            return JSONResponse({"error": e.detail}, e.status_code)
        return JSONResponse(balance_report.to_json(found))

    def season_list(request: Request) -> Response:
        return site.render("seasons.html", request, seasons=site.reads.seasons(), shown=MAX_SEASONS)

    def bot_page(request: Request) -> Response:
        found = site.reads.bots_named(str(request.path_params["bot_id"]))[0]
        bot = bot_view(found)
        site.tallies.catch_up(site.reads)
        versions = [bot_view(b) for b in site.reads.bots_named(found.name, found.game)]
        points = site.reads.bot_history(bot.id)
        history = plots.history({_label(bot): points})
        matches = site.reads.list_matches(MatchQuery(bot_id=bot.id, limit=10))
        owner = signin.viewer(request)
        theirs = None if owner is None else Reads(store, site.reads.ladder_games, owner)
        forkable = owner is not None and site.signin_served and owner.id == found.owner_id and any(
            b.id != found.id and b.archive_hash
            for b in store.bots.bots(found.game, forks.FORKABLE, owner_id=owner.id)
        )
        return site.render(
            "bot.html", request, forkable=forkable, bot=bot, versions=versions, history=history,
            challenge=_challenge_offer(site, bot), challenge_seats=range(table_size(bot.game)),
            verdict_tail=_verdict_tail(theirs, found),
            fitted=_fitted(site.reads, bot), last=points[-1] if points else None,
            finite=math.isfinite,
            tally=site.tallies.get(bot.id), pairs=site.reads.head_to_head(bot)[:BOT_ROWS],
            tables=site.reads.bot_tables(bot, BOT_ROWS), alpha=seat_stats.ALPHA,
            failures=site.reads.bot_failures(bot.id, BOT_ROWS),
            matches=matches, labels=_labels(site.reads, matches),
        )  # fmt: skip

    def match_list(request: Request) -> Response:
        query = MatchQuery(
            game=text(request, "game"), bot=text(request, "bot"), state=text(request, "state"),
            limit=number(request, "limit", MATCH_PAGE, 1, MAX_MATCH_PAGE),
            before_id=number(request, "before", 0, 0, MAX_ID),
        )  # fmt: skip
        matches = site.reads.list_matches(query)
        return site.render(
            "matches.html", request, query=query, matches=matches,
            labels=_labels(site.reads, matches),
            head=site.reads.head(), states=("", *MatchState),
            older=matches[-1].id if len(matches) == query.limit else 0,
        )  # fmt: skip

    def match_page(request: Request) -> Response:
        found = site.reads.match(request.path_params["match_id"])
        match = site.reads.match_view(found)
        payload = site.payload(match.id) if match.state == DONE else None
        logs: list[SeatLog] = []
        owner = signin.viewer(request)
        if owner is not None and match.state == DONE and not site.reads.withheld(found):
            # the signed-in owner's bots' private text, as the API gives it to them
            theirs = Reads(store, site.reads.ladder_games, owner)
            if theirs.readable_seats(found):
                payload = site.owner_payload(theirs, match.id)
                logs = _owner_logs(theirs, found)
        offer = None if owner is None or not site.signin_served else forks.offer(
            site.reads.store, owner, found
        )
        return site.render(
            "match.html", request, match=match, payload=payload,
            labels=_labels(site.reads, [match]), live=match.state == MatchState.RUNNING,
            logs=logs, fork_offer=offer,
        )  # fmt: skip

    def replay(request: Request) -> Response:
        found = site.reads.replay(request.path_params["match_id"])
        return Response(
            found.content, media_type="application/x-ndjson",
            headers={"content-disposition": f'attachment; filename="{found.match_id}.jsonl"'},
        )  # fmt: skip

    async def match_events(request: Request) -> Response:
        game = site.reads.game(text(request, "game")) or ""
        after = number(request, "after", 0, 0, MAX_ID)
        return site.streams.respond(site.reads, game, after)

    async def live_events(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        after = parse_number("last-event-id", request.headers.get("last-event-id") or "-1",
                             -1, MAX_ID)  # fmt: skip
        match = site.reads.match(match_id)  # NotFound: a 404 before any stream
        content = live_ladder.stream(site.reads, site.hub, match, after)
        return site.live_streams.serve(content, "watch it later, or wait for its replay")

    routes = [
        *signin.routes(site.render),
        *upload.routes(site.render, site.reads.ladder_games),
        *fork.routes(),
        Route("/", index),
        renderer_route(),
        Route("/games/{game}", leaderboard),
        Route("/games/{game}/balance", balance_page),
        Route("/games/{game}/balance.json", balance_json),
        Route("/seasons", season_list),
        Route("/bots/{bot_id:int}", bot_page),
        Route("/matches", match_list),
        Route("/matches/events", match_events),
        Route("/matches/{match_id:int}", match_page),
        Route("/matches/{match_id:int}/replay.jsonl", replay),
        Route("/matches/{match_id:int}/live", live_events),
        Route("/favicon.ico", lambda r: RedirectResponse("/static/favicon.svg", 301)),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    if check is not None:
        routes += health.routes(check)
    lifespan = None
    if challenges is not None:
        from niwa.web import challenge  # it imports niwa.web.human, which imports this module

        host = challenge.ChallengeHost(challenges)
        routes += challenge.routes(host)
        lifespan = host.lifespan
    handlers = _errors(site)
    app = _Site(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    if writer is not None:
        app.state.signin = signin.Signin(writer, signin_limits)
        site.signin_served = True
    app.add_middleware(signin.SessionLookup)
    app.add_middleware(metrics.PageTimer, routes=routes)
    return app


def renderer_module(request: Request) -> Response:
    """A game's viewer renderer, from its package (Game.renderer_asset); served by the
    ladder's pages, the local match's server and a human seat's page alike."""
    name = request.path_params["game"]
    if name not in engine.games():
        raise HTTPException(404, f"no game {name!r} is registered")
    asset = engine.load(name).renderer_asset()
    if asset is None:
        raise HTTPException(404, f"{name} ships no renderer: the viewer draws it generically")
    return Response(asset.read_bytes(), media_type="text/javascript")


def renderer_route() -> Route:
    """The route of every game's renderer module (the local match's server has it too)."""
    return Route(RENDERER_URL.replace("{game}", "{game:str}"), renderer_module)


def _balance(site: Site, game: str) -> balance_report.BalanceReport:
    """A game's balance report: a few dozen rows of running sums, whatever the matches."""
    if game not in site.reads.ladder_games:
        raise HTTPException(404, f"no {game[:64]!r} ladder here: its games are "
                            f"{', '.join(sorted(site.reads.ladder_games))}")  # fmt: skip
    return balance_report.report(site.reads.store, game)


def _challenge_offer(site: Site, bot: LadderBot) -> str:
    """What the bot page offers: "rated" or "unrated" (a person may challenge the bot
    here, and how it would count), or "" (no challenges here, or not of this bot)."""
    if not site.challenges_served or bot.status != ACTIVE or bot.source == HUMAN_SOURCE:
        return ""
    return RATED_CHOICE if are_rated(site.reads.store) else UNRATED_CHOICE


def _verdict_tail(reads: Reads | None, bot: Bot) -> tuple[str, ...]:
    """A rejected bot's stderr in its validation match, if ``reads``' viewer (a
    signed-in owner) may read it: its owner and admins."""
    if reads is None or bot.status != BotStatus.REJECTED or not reads.may_read_logs(bot.owner_id):
        return ()
    return reads.store.matches.validation_tail(bot.id)


def _owner_logs(reads: Reads, match: Match) -> list[SeatLog]:
    """The stderr tails of the seats of ``match`` that ``reads``' viewer may read."""
    seats = reads.readable_seats(match)
    bots = sorted({match.seats[s] for s in seats})
    logs = [seat for bot_id in bots for seat in reads.bot_logs(match.id, str(bot_id)).seats]
    return sorted(logs, key=lambda s: s.seat)


def _label(bot: LadderBot) -> str:
    return f"{bot.name}@{bot.version}"


def _fitted(reads: Reads, bot: LadderBot) -> LeaderboardRow | None:
    """The bot's row on its game's leaderboard (the fitted Elo); None when it is not
    there (not active)."""
    board = reads.leaderboards(bot.game)[0]
    return next((row for row in board.rows if row.bot.id == bot.id), None)


def _labels(reads: Reads, matches: Iterable[MatchView]) -> dict[int, str]:
    """Every seated bot's name@version (a queued match has no results to name them)."""
    labels: dict[int, str] = {}
    for m in matches:
        for r in m.results:
            labels[r.bot_id] = r.bot
        for bot_id in m.seats:
            if bot_id not in labels:
                labels[bot_id] = reads.store.bots.bot(bot_id).label
    return labels


def _database_down(site: Site) -> Callable[[Request, Exception], Response]:
    """A 503 naming the cause while the store's server does not answer (restarting: the
    next request reconnects), and one log event instead of a traceback."""

    def handle(request: Request, exc: Exception) -> Response:
        log.error("store_unavailable", path=request.url.path, error=str(exc))
        headers = {"retry-after": str(RETRY_AFTER_S)}
        accept = request.headers.get("accept", "")
        if "application/json" in accept and "text/html" not in accept:
            return JSONResponse({"error": UNAVAILABLE}, 503, headers)
        page = site.render("error.html", request, status=503, status_code=503, detail=UNAVAILABLE)
        page.headers.update(headers)
        return page

    return handle


def _errors(site: Site) -> dict[Any, Callable[[Request, Exception], Response]]:
    def page(status: int) -> Callable[[Request, Exception], Response]:
        def handle(request: Request, exc: Exception) -> Response:
            detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
            return site.render(
                "error.html", request, status=status, status_code=status, detail=detail
            )

        return handle

    def http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return page(exc.status_code)(request, exc)

    return {
        HTTPException: http,
        NotFound: page(404),
        ReplayTampered: page(500),
        StoreError: page(400),
        replay_file.ReplayError: page(500),
        DatabaseError: _database_down(site),
    }
