"""The ``niwa.v1.Ladder`` gRPC service, and the same reads for a local store.

The read functions (:class:`Reads`) turn store rows into API messages; the server
answers with them and the CLI, given ``--db``, calls them directly, so both print the
same thing, and both refuse malformed requests the same way. Writes check the caller's
token (gRPC metadata ``authorization: Bearer TOKEN``): an owner may submit and retire
their own bots, an admin anything.

The servicer runs on an asyncio event loop (see ``ladder.server``); every store call runs
on a small thread pool: one for anonymous callers, one for callers with a token, one for
uploads, so a crowd of anonymous callers never delays an owner. Streams hold no thread:
one task polls the store for finished matches and wakes the watchers.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import grpc
import structlog

import engine
from ladder import elo, sparring, submission
from ladder.admission import NEEDS_TOKEN, UNKNOWN_TOKEN, Limits, caller
from ladder.store import (
    ACTIVE,
    DONE,
    REJECTED,
    RETIRED,
    SYSTEM_OWNER,
    Bot,
    Match,
    Owner,
    Store,
    StoreError,
)
from niwa_proto.v1 import ladder_pb2 as pb
from niwa_proto.v1 import ladder_pb2_grpc as pb_grpc

WATCH_POLL_S = 0.3
#: How long anonymous callers share one computed leaderboard.
BOARD_CACHE_S = 2.0
#: Matches sent per store query while a watcher catches up.
WATCH_BATCH = 100
#: ListMatches answers at most this many per call; page with ``before_id``.
MAX_LIST = 200
DEFAULT_LIST = 20
#: Longest game name, state or owner name a request may carry.
MAX_TEXT = 64
STATES = ("queued", "running", "done", "failed")

T = TypeVar("T")
log = structlog.get_logger("niwa.ladder.api")


class NotFound(StoreError):
    """What the request names does not exist (gRPC NOT_FOUND)."""


class Denied(StoreError):
    """The caller may not read this (gRPC PERMISSION_DENIED)."""


class ReplayTampered(StoreError):
    """A replay file no longer matches the SHA-256 recorded when its match finished
    (gRPC DATA_LOSS)."""


def bot_message(bot: Bot, stderr_tail: Iterable[str] = ()) -> pb.LadderBot:
    return pb.LadderBot(
        id=bot.id,
        name=bot.name,
        version=bot.version,
        game=bot.game,
        owner=bot.owner,
        source=bot.source,
        archive_hash=bot.archive_hash or "",
        status=bot.status,
        reason=bot.reason,
        elo=bot.elo,
        games=bot.games,
        wins=bot.wins,
        stderr_tail=list(stderr_tail),
    )


def _text(what: str, value: str) -> str:
    if len(value) > MAX_TEXT:
        raise StoreError(f"{what} is {len(value)} characters long: at most {MAX_TEXT}")
    return value


def known_games(games: Iterable[str] | None = None) -> frozenset[str]:
    """The ladder's games and every registered one (a store may hold bots of both)."""
    return frozenset(games or ()) | frozenset(engine.games())


def check_game(name: str, games: frozenset[str]) -> str | None:
    """A game filter: None for all, else a known game's name."""
    if not name:
        return None
    _text("the game name", name)
    if name not in games:
        raise NotFound(f"no game {name!r} on this ladder: games are {', '.join(sorted(games))}")
    return name


def _id(what: str, value: int, optional: bool = False) -> int:
    if value < 0 or (value == 0 and not optional):
        raise StoreError(f"{what} {value}: ids are positive")
    return value


def shown_placings(
    placings: Iterable[Sequence[tuple[int, int]]], shown: Collection[int]
) -> list[list[tuple[int, int]]]:
    """The leaderboard's evidence: every rated match with only the seats of the bots it
    shows (superseded, retired and reserve bots are left out of the fit, so the mean
    of 1500 is the mean of the rows shown); a match left with fewer than two seats
    says nothing about how they compare."""
    kept = [[(bot, place) for bot, place in match if bot in shown] for match in placings]
    return [match for match in kept if len(match) >= 2]


class Reads:
    """Reads over one store: leaderboards, bots, matches, replays, bot logs. Malformed
    requests raise :class:`StoreError` (or :class:`NotFound`) with one line.

    ``viewer`` is the caller (None: anonymous): a bot's stderr goes only to its owner
    and to admins. ``trusted`` reads (the CLI's ``--db``, which has the files anyway)
    see everything."""

    def __init__(
        self,
        store: Store,
        games: Iterable[str] | None = None,
        viewer: Owner | None = None,
        trusted: bool = False,
    ) -> None:
        self.store = store
        self.ladder_games = list(games or ()) or engine.games()
        self.games = known_games(games)
        self.viewer = viewer
        self.trusted = trusted

    def game(self, name: str) -> str | None:
        return check_game(name, self.games)

    def may_read_logs(self, owner_id: int) -> bool:
        """May the caller read the stderr of a bot of ``owner_id``?"""
        v = self.viewer
        return self.trusted or (v is not None and (v.is_admin or v.id == owner_id))

    def list_bots(self, request: pb.ListBotsRequest) -> pb.ListBotsResponse:
        statuses = None if request.all else [ACTIVE]
        game = self.game(request.game)
        bots = self.store.bots(game, statuses)
        return pb.ListBotsResponse(
            bots=[bot_message(b, self._verdict_tail(b)) for b in bots],
            games=[self.game_status(g) for g in ([game] if game else self.ladder_games)],
        )

    def _verdict_tail(self, bot: Bot) -> tuple[str, ...]:
        """A bot rejected because it went out in validation: the end of its stderr
        there, for its owner."""
        if bot.status != REJECTED or not self.may_read_logs(bot.owner_id):
            return ()
        return self.store.validation_tail(bot.id)

    def game_status(self, game: str) -> pb.GameStatus:
        """Whether ``game`` can make a match; said to be waiting only once a bot has
        been submitted to it (a game nobody plays is not news)."""
        bots = self.store.bots(game)
        active = sum(b.status == ACTIVE for b in bots)
        need = sparring.needed(engine.load(game).info.min_players)
        submitted = any(b.owner != SYSTEM_OWNER for b in bots)
        return pb.GameStatus(
            game=game, active=active, needed=need,
            waiting=sparring.waiting(active, need) if submitted else "",
        )  # fmt: skip

    def leaderboard(self, request: pb.LeaderboardRequest) -> pb.LeaderboardResponse:
        game = self.game(request.game)
        games = [game] if game else self.store.games_with_matches()
        return pb.LeaderboardResponse(boards=[self._board(g) for g in games])

    def _board(self, game: str) -> pb.Leaderboard:
        placings = self.store.rated_placings(game)
        bots = self.store.bots(game, [ACTIVE])
        estimates = elo.batch_elo(shown_placings(placings, {b.id for b in bots}))
        unrated = elo.Estimate(elo.BASE, float("inf"))
        ranked = sorted(
            bots,
            key=lambda b: (b.id not in estimates, -estimates.get(b.id, unrated).elo, b.name),
        )
        rows = [
            pb.LeaderboardRow(
                rank=rank,
                bot=bot_message(b),
                elo=estimates.get(b.id, unrated).elo,
                ci95=estimates.get(b.id, unrated).ci95,
            )
            for rank, b in enumerate(ranked, start=1)
        ]
        return pb.Leaderboard(game=game, matches=len(placings), rows=rows)

    def match_message(self, match: Match) -> pb.Match:
        bots = {b: self.store.bot(b) for b in set(match.seats)}
        results = []
        for r in self.store.results(match.id):
            bot = bots.get(r.bot_id)
            out = r.status != "ok"
            results.append(pb.SeatResult(
                seat=r.seat,
                bot_id=r.bot_id,
                bot=bot.label if bot else str(r.bot_id),
                place=r.place,
                score=r.score,
                status=r.status,
                reason=f"{r.reason}: {r.detail}" if out and r.detail else r.reason,
                failure=r.reason if out else "",
                out_step=r.out_step or 0,
                out_at_start=out and r.out_step is None,
                detail=r.detail if out else "",
                stderr_tail=list(r.stderr_tail)
                if bot is not None and self.may_read_logs(bot.owner_id) else [],
            ))  # fmt: skip
        return pb.Match(
            id=match.id,
            game=match.game,
            game_version=match.game_version,
            kind=match.kind,
            seed=match.seed,
            options_json=json.dumps(match.options, sort_keys=True),
            state=match.state,
            seats=list(match.seats),
            results=results,
            created_at=match.created_at,
            started_at=match.started_at or 0.0,
            finished_at=match.finished_at or 0.0,
            wall_s=match.wall_s or 0.0,
            decisions=match.decisions or 0,
            error=match.error,
            seq=match.seq or 0,
            replay_sha256=match.replay_sha256 or "",
            duplicate_group=match.duplicate_group or 0,
        )

    def list_matches(self, request: pb.ListMatchesRequest) -> pb.ListMatchesResponse:
        if request.limit < 0:
            raise StoreError(
                f"limit {request.limit}: give 1 to {MAX_LIST} (0: {DEFAULT_LIST}), "
                "and page with before_id"
            )
        if request.state and _text("the state", request.state) not in STATES:
            raise StoreError(f"state {request.state!r}: one of {', '.join(STATES)}")
        game = self.game(request.game)
        bot_ids = None
        if request.bot:
            bot_ids = [b.id for b in self.bots_named(request.bot, game)]
        matches = self.store.matches(
            game=game,
            bot_id=_id("bot", request.bot_id, optional=True) or None,
            bot_ids=bot_ids,
            state=request.state or None,
            limit=min(request.limit or DEFAULT_LIST, MAX_LIST),
            before_id=_id("before_id", request.before_id, optional=True) or None,
        )
        return pb.ListMatchesResponse(matches=[self.match_message(m) for m in matches])

    def bots_named(self, text: str, game: str | None = None) -> list[Bot]:
        """The bots ``text`` names: a name (every version), ``name@version``, or an id."""
        _text("the bot", text)
        if text.isdigit():
            try:
                return [self.store.bot(int(text))]
            except StoreError as e:
                raise NotFound(str(e)) from None
        name, _, version = text.partition("@")
        found = [
            b for b in self.store.bots(game)
            if b.name.lower() == name.lower() and (not version or b.version == version)
        ]
        if not found:
            raise NotFound(f"no bot {text!r} on this ladder: see niwa ladder bots --all")
        return found

    def bot_logs(self, request: pb.GetBotLogsRequest) -> pb.BotLogs:
        """The stderr tail of the named bot in one match: its owner's and admins' only."""
        match = self.match(request.match_id)
        if not request.bot:
            raise StoreError("name the bot: its name, name@version or id")
        named = {b.id: b for b in self.bots_named(request.bot, match.game)}
        seats = [r for r in self.store.results(match.id) if r.bot_id in named]
        if not seats:
            if not set(named) & set(match.seats):
                raise NotFound(
                    f"{request.bot!r} did not play in match {match.id}: its seats are "
                    + ", ".join(self.store.bot(b).label for b in match.seats)
                )
            raise StoreError(f"match {match.id} is {match.state}: it has no logs yet")
        for r in seats:
            bot = named[r.bot_id]
            if not self.may_read_logs(bot.owner_id):
                raise Denied(
                    f"the logs of {bot.label} are for its owner ({bot.owner}) and admins: "
                    "pass their token (--token or NIWA_TOKEN)"
                )
        return pb.BotLogs(match_id=match.id, seats=[
            pb.SeatLog(
                seat=r.seat, bot_id=r.bot_id, bot=named[r.bot_id].label, status=r.status,
                failure=r.reason if r.status != "ok" else "", stderr_tail=list(r.stderr_tail),
            )
            for r in seats
        ])  # fmt: skip

    def match(self, match_id: int) -> Match:
        _id("match", match_id)
        try:
            return self.store.match(match_id)
        except StoreError as e:
            raise NotFound(str(e)) from None

    def replay(self, request: pb.GetReplayRequest) -> pb.Replay:
        """The replay file, only if it still has the SHA-256 recorded when its match
        finished: a file changed on disk is refused (and logged), never served."""
        match = self.match(request.match_id)
        if match.state != DONE:
            raise StoreError(
                f"match {match.id} is {match.state}: only finished matches have a replay"
            )
        path = self.store.replay_path(match.id)
        content = path.read_bytes()
        digest = hashlib.sha256(content).hexdigest()
        recorded = match.replay_sha256 or ""
        if digest != recorded:
            log.error(
                "replay_tampered", match_id=match.id, path=str(path), recorded=recorded,
                actual=digest,
            )  # fmt: skip
            raise ReplayTampered(
                f"the replay of match {match.id} ({path}) no longer matches its recorded "
                f"SHA-256 ({recorded[:16] or 'none recorded'}, the file has {digest[:16]}): "
                "it was changed or damaged on disk; restore it from a backup"
            )
        return pb.Replay(match_id=match.id, content=content, sha256=digest)

    def head(self) -> int:
        """The finish number (seq) of the last finished match; 0 if none."""
        return int(self.store.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM matches"))

    def finished_after(self, game: str | None, seq: int) -> list[pb.Match]:
        return [
            self.match_message(m)
            for m in self.store.matches(game=game, after_seq=seq, limit=WATCH_BATCH)
        ]


class LadderService(pb_grpc.LadderServicer):
    """The gRPC servicer: async handlers, store work on bounded pools (one store
    connection per pool thread)."""

    def __init__(
        self, db_url: str, data_dir: Path | None, games: list[str], limits: Limits | None = None
    ) -> None:
        self.db_url = db_url
        self.data_dir = data_dir
        self.games = games
        self.limits = limits or Limits()
        self.known = known_games(games)
        self._local = threading.local()
        self.public = ThreadPoolExecutor(self.limits.public_threads, "niwa-api-public")
        self.owners = ThreadPoolExecutor(self.limits.owner_threads, "niwa-api-owners")
        self.uploads = ThreadPoolExecutor(self.limits.uploads, "niwa-api-uploads")
        self.tokens = ThreadPoolExecutor(1, "niwa-api-tokens")
        self._boards: dict[str, tuple[float, pb.LeaderboardResponse]] = {}
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
            store = Store.open(self.db_url, self.data_dir)
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
        return await self._run(lambda r: r.store.owner_for_token(token), self.tokens)

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
        except ReplayTampered as e:
            await context.abort(grpc.StatusCode.DATA_LOSS, str(e))
        except (StoreError, submission.SubmissionError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except FileNotFoundError as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"file missing: {e.filename}")
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
        self, request: pb.SubmitBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SubmitBotResponse:
        owner = await self._caller(context)
        bots = await self._guard(
            context,
            lambda r: submission.submit(r.store, owner, request.archive, self.games),
            self.uploads,
        )
        return pb.SubmitBotResponse(bots=[bot_message(b) for b in bots])

    async def RetireBot(
        self, request: pb.RetireBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.LadderBot:
        owner = await self._caller(context)

        def retire(reads: Reads) -> Bot | str:
            _id("bot", request.bot_id)
            try:
                bot = reads.store.bot(request.bot_id)
            except StoreError as e:
                raise NotFound(str(e)) from None
            if bot.owner_id != owner.id and not owner.is_admin:
                return f"bot {bot.id} ({bot.label}) belongs to {bot.owner}, not to {owner.name}"
            reads.store.set_bot_status(bot.id, RETIRED, f"retired by {owner.name}")
            return reads.store.bot(bot.id)

        bot = await self._guard(context, retire)
        if isinstance(bot, str):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, bot)
        assert not isinstance(bot, str)
        return bot_message(bot)

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
            lambda r: r.store.add_owner(_text("the owner name", request.name), request.admin),
        )
        return pb.AddOwnerResponse(name=owner.name, token=token)

    async def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListBotsResponse:
        return await self._guard(context, lambda r: r.list_bots(request))

    async def GetLeaderboard(
        self, request: pb.LeaderboardRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.LeaderboardResponse:
        """Anonymous callers share one answer per game for BOARD_CACHE_S: a leaderboard
        fits every rated match again, too much work to do per anonymous call."""
        anonymous = caller().owner is None
        cached = self._boards.get(request.game)
        if anonymous and cached is not None and time.monotonic() - cached[0] < BOARD_CACHE_S:
            return cached[1]
        reply = await self._guard(context, lambda r: r.leaderboard(request))
        self._boards[request.game] = (time.monotonic(), reply)  # a known game or ""
        return reply

    async def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListMatchesResponse:
        return await self._guard(context, lambda r: r.list_matches(request))

    async def GetReplay(
        self, request: pb.GetReplayRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.Replay:
        return await self._guard(context, lambda r: r.replay(request))

    async def GetBotLogs(
        self, request: pb.GetBotLogsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.BotLogs:
        return await self._guard(context, lambda r: r.bot_logs(request))

    @staticmethod
    def _finished_after(game: str | None, seq: int) -> Callable[[Reads], list[pb.Match]]:
        return lambda reads: reads.finished_after(game, seq)

    async def _follow(self) -> None:
        """The one poll of the store for every watcher: wake them when a match finishes."""
        while True:
            try:
                head = await self._run(Reads.head, self.public)
            except Exception:  # a locked or broken store: log, keep the watchers waiting
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
            last = _id("after_seq", request.after_seq, optional=True)
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
                    yield match
                if len(batch) < WATCH_BATCH:
                    last = max(last, head)  # the rest up to head are other games'
                continue
            head = await self._next_head(head)
