"""The ``niwa.v1.Ladder`` gRPC service: requests in, ``niwa.ladder.reads`` and
``niwa.ladder.submission`` on the store, messages out (``niwa.ladder.wire`` converts).

Writes check the caller's token (gRPC metadata ``authorization: Bearer TOKEN``): an
owner may submit and retire their own bots, an admin anything.

The servicer runs on an asyncio event loop (see ``niwa.ladder.server``); every store call runs
on a small thread pool: one for anonymous callers, one for callers with a token, one for
uploads, so a crowd of anonymous callers never delays an owner. Streams hold no thread:
one task polls the store for finished matches and wakes the watchers.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import grpc
import structlog

from niwa.ladder import forks, leagues, seasons, submission
from niwa.ladder.admission import NEEDS_TOKEN, UNKNOWN_TOKEN, ApiLimits, caller
from niwa.ladder.db import DatabaseError, unavailable
from niwa.ladder.reads import (
    WATCH_BATCH,
    Denied,
    NeedsToken,
    NotFound,
    Reads,
    ReplayTampered,
    bot_view,
    check_game,
    check_id,
    check_text,
    known_games,
    season_view,
)
from niwa.ladder.store import RETIRED, Bot, Owner, Store, StoreError
from niwa.ladder.views import MatchQuery, MatchView
from niwa.ladder.wire import from_message, to_message
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc

WATCH_POLL_S = 0.3
#: How long anonymous callers share one computed leaderboard.
BOARD_CACHE_S = 2.0

T = TypeVar("T")
log = structlog.get_logger("niwa.ladder.api")


class LadderService(pb_grpc.LadderServicer):
    """The gRPC servicer: async handlers, store work on bounded pools (one store
    connection per pool thread)."""

    def __init__(
        self, db_url: str, data_dir: Path | None, games: list[str], limits: ApiLimits | None = None
    ) -> None:
        self.db_url = db_url
        self.data_dir = data_dir
        self.games = games
        self.limits = limits or ApiLimits()
        self.known = known_games(games)
        self._local = threading.local()
        self.public = ThreadPoolExecutor(self.limits.public_threads, "niwa-api-public")
        self.owners = ThreadPoolExecutor(self.limits.owner_threads, "niwa-api-owners")
        self.uploads = ThreadPoolExecutor(self.limits.uploads, "niwa-api-uploads")
        self.tokens = ThreadPoolExecutor(1, "niwa-api-tokens")
        self._boards: dict[tuple[str, str], tuple[float, pb.LeaderboardResponse]] = {}
        self._head: int | None = None
        self._changed = asyncio.Condition()
        self._feed: asyncio.Task[None] | None = None

    async def close(self) -> None:
        if self._feed is not None:
            self._feed.cancel()
        for pool in (self.public, self.owners, self.uploads, self.tokens):
            pool.shutdown(wait=False, cancel_futures=True)

    def _store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = Store.open(self.db_url, self.data_dir, reconnect=True)
            self._local.store = store
        return store

    async def _run(self, work: Callable[[Reads], T], pool: ThreadPoolExecutor | None = None) -> T:
        """Run store work on the caller's pool (owners' when it sent a valid token),
        reading as that caller (the pool's threads do not see the call's context)."""
        viewer = caller().owner
        if pool is None:
            pool = self.public if viewer is None else self.owners

        def job() -> T:
            return work(Reads(self._store(), self.games, viewer))

        return await asyncio.get_running_loop().run_in_executor(pool, job)

    async def owner_for_token(self, token: str) -> Owner | None:
        return await self._run(lambda r: r.store.owners.owner_for_token(token), self.tokens)

    async def _guard(
        self, context: grpc.aio.ServicerContext[Any, Any], work: Callable[[Reads], T],
        pool: ThreadPoolExecutor | None = None,
    ) -> T:
        """Run ``work``; turn the errors a request can cause into one-line statuses."""
        try:
            return await self._run(work, pool)
        except NotFound as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(e))
        except Denied as e:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, str(e))
        except NeedsToken as e:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(e))
        except ReplayTampered as e:
            await context.abort(grpc.StatusCode.DATA_LOSS, str(e))
        except forks.TooManyForks as e:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(e))
        except (StoreError, submission.SubmissionError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except FileNotFoundError as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"file missing: {e.filename}")
        except DatabaseError as e:  # the server restarting: the next call reconnects
            log.error("store_unavailable", error=str(e))
            await context.abort(grpc.StatusCode.UNAVAILABLE, unavailable(e))
        raise AssertionError("abort returns only by raising")

    async def _caller(self, context: grpc.aio.ServicerContext[Any, Any]) -> Owner:
        who = caller()
        if who.owner is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, UNKNOWN_TOKEN if who.token else NEEDS_TOKEN
            )
        assert who.owner is not None
        return who.owner

    async def SubmitBot(
        self,
        requests: AsyncIterator[pb.SubmitBotRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> pb.SubmitBotResponse:
        """``requests``: the archive's chunks, which admission has already read, bounded
        and joined into one message (niwa.ladder.admission)."""
        owner = await self._caller(context)
        archive = b"".join([request.archive async for request in requests])
        bots = await self._guard(
            context,
            lambda r: submission.submit(r.store, owner, archive, self.games),
            self.uploads,
        )
        return pb.SubmitBotResponse(bots=[to_message(bot_view(b), pb.LadderBot) for b in bots])

    async def RetireBot(
        self, request: pb.RetireBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.LadderBot:
        owner = await self._caller(context)

        def retire(reads: Reads) -> Bot | str:
            check_id("bot", request.bot_id)
            try:
                bot = reads.store.bots.bot(request.bot_id)
            except StoreError as e:
                raise NotFound(str(e)) from None
            if bot.owner_id != owner.id and not owner.is_admin:
                return f"bot {bot.id} ({bot.label}) belongs to {bot.owner}, not to {owner.name}"
            reads.store.bots.set_bot_status(bot.id, RETIRED, f"retired by {owner.name}")
            return reads.store.bots.bot(bot.id)

        bot = await self._guard(context, retire)
        if isinstance(bot, str):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, bot)
        assert not isinstance(bot, str)
        return to_message(bot_view(bot), pb.LadderBot)

    async def AddOwner(
        self, request: pb.AddOwnerRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.AddOwnerResponse:
        caller = await self._caller(context)
        if not caller.is_admin:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED, "adding an owner needs an admin token"
            )
        owner, token = await self._guard(
            context,
            lambda r: r.store.owners.add_owner(
                check_text("the owner name", request.name), request.admin
            ),
        )
        return pb.AddOwnerResponse(name=owner.name, token=token)

    async def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListBotsResponse:
        listing = await self._guard(context, lambda r: r.list_bots(request.game, request.all))
        return to_message(listing, pb.ListBotsResponse)

    async def GetLeaderboard(
        self, request: pb.LeaderboardRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.LeaderboardResponse:
        """Anonymous callers share one answer per game for BOARD_CACHE_S: a leaderboard
        fits every rated match again, too much work to do per anonymous call."""
        anonymous = caller().owner is None
        key = (request.game, request.season)
        cached = self._boards.get(key)
        if anonymous and cached is not None and time.monotonic() - cached[0] < BOARD_CACHE_S:
            return cached[1]
        boards = await self._guard(
            context, lambda r: r.leaderboards(request.game, request.season)
        )
        reply = pb.LeaderboardResponse(boards=[to_message(b, pb.Leaderboard) for b in boards])
        # a known game or "", and a season that exists or "": at most games x seasons
        self._boards[key] = (time.monotonic(), reply)
        return reply

    async def ListSeasons(
        self, request: pb.ListSeasonsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListSeasonsResponse:
        found = await self._guard(context, lambda r: r.seasons(request.name))
        return pb.ListSeasonsResponse(seasons=[to_message(s, pb.Season) for s in found])

    async def StartSeason(
        self, request: pb.StartSeasonRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.Season:
        caller = await self._caller(context)
        if not caller.is_admin:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED, "starting a season needs an admin token"
            )

        def start(reads: Reads) -> pb.Season:
            for text in (request.name, request.time_control, *request.games):
                check_text("a season's name, game or time control", text)
            if len(request.games) > len(self.known):
                raise StoreError(f"a season plays at most the ladder's {len(self.known)} games")
            season = seasons.start(
                reads.store, request.name, list(request.games), request.time_control, self.games
            )
            log.info("season_started_by", owner=caller.name, season=season.name)
            return to_message(season_view(season), pb.Season)

        reply = await self._guard(context, start)
        self._boards.clear()  # the cached boards are the ended season's
        return reply

    async def SetLeagues(
        self, request: pb.SetLeaguesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.Leagues:
        caller = await self._caller(context)
        if not caller.is_admin:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED, "setting leagues needs an admin token"
            )

        def set_leagues(reads: Reads) -> pb.Leagues:
            game = check_game(check_text("the game", request.game), self.known)
            if game is None:
                raise StoreError("name the game whose leagues these are")
            if len(request.leagues) > leagues.MAX_LEAGUES:
                raise StoreError(f"give 1 to {leagues.MAX_LEAGUES} leagues as NAME:BOSS")
            for text in request.leagues:
                check_text("a league", text)
            view = leagues.set_or_clear(
                reads.store, game, list(request.leagues), request.share_above
            )
            log.info("leagues_set_by", owner=caller.name, game=game, leagues=len(view.leagues))
            return to_message(view, pb.Leagues)

        reply = await self._guard(context, set_leagues)
        self._boards.clear()  # the cached boards name the leagues as they were
        return reply

    async def ForkMatch(
        self, request: pb.ForkMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.Match:
        owner = await self._caller(context)

        def fork(reads: Reads) -> pb.Match:
            match = reads.match(request.match_id)
            if not request.bot:
                raise StoreError("name your other bot: name@version or its id")
            named = reads.bots_named(request.bot, match.game)
            if len(named) > 1:
                raise StoreError(f"{request.bot!r} names {len(named)} versions: give "
                                 "name@version or an id")  # fmt: skip
            forked = forks.queue(
                reads.store, owner, match.id, request.step, request.seat, named[0].id
            )
            return to_message(reads.match_view(reads.store.matches.match(forked)), pb.Match)

        return await self._guard(context, fork)

    async def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListMatchesResponse:
        query = from_message(MatchQuery, request)
        found = await self._guard(context, lambda r: r.list_matches(query))
        return pb.ListMatchesResponse(matches=[to_message(m, pb.Match) for m in found])

    async def GetReplay(
        self, request: pb.GetReplayRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.Replay:
        replay = await self._guard(context, lambda r: r.replay(request.match_id))
        return to_message(replay, pb.Replay)

    async def GetBotLogs(
        self, request: pb.GetBotLogsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.BotLogs:
        logs = await self._guard(context, lambda r: r.bot_logs(request.match_id, request.bot))
        return to_message(logs, pb.BotLogs)

    @staticmethod
    def _finished_after(game: str | None, seq: int) -> Callable[[Reads], list[MatchView]]:
        return lambda reads: reads.finished_after(game, seq)

    async def _follow(self) -> None:
        """The one poll of the store for every watcher: wake them when a match finishes."""
        down = False  # the store failing: logged once, not at every poll
        while True:
            try:
                head = await self._run(Reads.head, self.public)
                if down:
                    log.info("watch_poll_recovered")
                down = False
            except DatabaseError as e:  # the server away: keep the watchers waiting
                if not down:
                    log.error("watch_poll_failed", error=str(e))
                down = True
                head = self._head or 0
            except Exception:  # a locked store: log, keep the watchers waiting
                log.exception("watch_poll_failed")
                head = self._head or 0
            if head != self._head:
                async with self._changed:
                    self._head = head
                    self._changed.notify_all()
            await asyncio.sleep(WATCH_POLL_S)

    async def _next_head(self, seen: int | None) -> int:
        if self._feed is None:
            self._feed = asyncio.create_task(self._follow())
        async with self._changed:
            await self._changed.wait_for(lambda: self._head is not None and self._head != seen)
            assert self._head is not None
            return self._head

    async def WatchMatches(
        self, request: pb.WatchMatchesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.Match]:
        try:
            game = check_game(request.game, self.known)
            last = check_id("after_seq", request.after_seq, optional=True)
        except NotFound as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(e))
        except StoreError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        head = await self._next_head(None)
        last = last or head
        # Headers once "from now" is fixed: every match finishing after the client has
        # them is sent.
        await context.send_initial_metadata(())
        while True:
            if head > last:
                batch = await self._run(self._finished_after(game, last))
                for match in batch:
                    last = max(last, match.seq)
                    yield to_message(match, pb.Match)
                if len(batch) < WATCH_BATCH:
                    last = max(last, head)  # the rest up to head are other games'
                continue
            head = await self._next_head(head)
