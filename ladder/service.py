"""The ``niwa.v1.Ladder`` gRPC service, and the same reads for a local store.

The read functions (:class:`Reads`) turn store rows into API messages; the server
answers with them and the CLI, given ``--db``, calls them directly, so both print the
same thing. Writes check the caller's token (gRPC metadata ``authorization: Bearer
TOKEN``): an owner may submit and retire their own bots, an admin anything.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc

from ladder import elo, submission
from ladder.store import ACTIVE, DONE, RETIRED, Bot, Match, Owner, Store, StoreError
from niwa.v1 import ladder_pb2 as pb
from niwa.v1 import ladder_pb2_grpc as pb_grpc

TOKEN_HEADER = "authorization"
WATCH_POLL_S = 0.3


def bot_message(bot: Bot) -> pb.LadderBot:
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
    )


class Reads:
    """Open reads over one store: leaderboards, bots, matches, replays."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def list_bots(self, request: pb.ListBotsRequest) -> pb.ListBotsResponse:
        statuses = None if request.all else [ACTIVE]
        bots = self.store.bots(request.game or None, statuses)
        return pb.ListBotsResponse(bots=[bot_message(b) for b in bots])

    def leaderboard(self, request: pb.LeaderboardRequest) -> pb.LeaderboardResponse:
        games = [request.game] if request.game else self.store.games_with_matches()
        return pb.LeaderboardResponse(boards=[self._board(g) for g in games])

    def _board(self, game: str) -> pb.Leaderboard:
        placings = self.store.rated_placings(game)
        estimates = elo.batch_elo(placings)
        bots = self.store.bots(game, [ACTIVE])
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
        names = {b: self.store.bot(b).label for b in set(match.seats)}
        results = [
            pb.SeatResult(
                seat=r.seat,
                bot_id=r.bot_id,
                bot=names.get(r.bot_id, str(r.bot_id)),
                place=r.place,
                score=r.score,
                status=r.status,
                reason=r.reason,
            )
            for r in self.store.results(match.id)
        ]
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
        matches = self.store.matches(
            game=request.game or None,
            bot_id=request.bot_id or None,
            state=request.state or None,
            limit=request.limit or 20,
        )
        return pb.ListMatchesResponse(matches=[self.match_message(m) for m in matches])

    def replay(self, request: pb.GetReplayRequest) -> pb.Replay:
        match = self.store.match(request.match_id)
        if match.state != DONE:
            raise StoreError(
                f"match {match.id} is {match.state}: only finished matches have a replay"
            )
        path = self.store.replay_path(match.id)
        return pb.Replay(match_id=match.id, content=path.read_bytes())


class LadderService(pb_grpc.LadderServicer):
    """The gRPC servicer: one store connection per server thread."""

    def __init__(self, db_url: str, data_dir: Path | None, games: list[str]) -> None:
        self.db_url = db_url
        self.data_dir = data_dir
        self.games = games
        self._local = threading.local()

    def _store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = Store.open(self.db_url, self.data_dir)
            self._local.store = store
        return store

    def _reads(self) -> Reads:
        return Reads(self._store())

    def _caller(self, context: grpc.ServicerContext) -> Owner:
        token = ""
        for key, value in context.invocation_metadata():
            if key == TOKEN_HEADER and isinstance(value, str):
                token = value.removeprefix("Bearer ").strip()
        if not token:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "this call needs a token: pass --token or set NIWA_TOKEN",
            )
        owner = self._store().owner_for_token(token)
        if owner is None:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "unknown token: ask the ladder's admin for one (niwa ladder user add)",
            )
        assert owner is not None
        return owner

    def _guard(self, context: grpc.ServicerContext, call: Any) -> Any:
        try:
            return call()
        except (StoreError, submission.SubmissionError) as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except FileNotFoundError as e:
            context.abort(grpc.StatusCode.NOT_FOUND, f"file missing: {e.filename}")

    def SubmitBot(
        self, request: pb.SubmitBotRequest, context: grpc.ServicerContext
    ) -> pb.SubmitBotResponse:
        owner = self._caller(context)
        bots = self._guard(
            context, lambda: submission.submit(self._store(), owner, request.archive, self.games)
        )
        return pb.SubmitBotResponse(bots=[bot_message(b) for b in bots])

    def RetireBot(
        self, request: pb.RetireBotRequest, context: grpc.ServicerContext
    ) -> pb.LadderBot:
        owner = self._caller(context)
        store = self._store()
        bot = self._guard(context, lambda: store.bot(request.bot_id))
        if bot.owner_id != owner.id and not owner.is_admin:
            context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                f"bot {bot.id} ({bot.label}) belongs to {bot.owner}, not to {owner.name}",
            )
        store.set_bot_status(bot.id, RETIRED, f"retired by {owner.name}")
        return bot_message(store.bot(bot.id))

    def AddOwner(
        self, request: pb.AddOwnerRequest, context: grpc.ServicerContext
    ) -> pb.AddOwnerResponse:
        caller = self._caller(context)
        if not caller.is_admin:
            context.abort(
                grpc.StatusCode.PERMISSION_DENIED, "adding an owner needs an admin token"
            )
        owner, token = self._guard(
            context, lambda: self._store().add_owner(request.name, request.admin)
        )
        return pb.AddOwnerResponse(name=owner.name, token=token)

    def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.ServicerContext
    ) -> pb.ListBotsResponse:
        return self._reads().list_bots(request)

    def GetLeaderboard(
        self, request: pb.LeaderboardRequest, context: grpc.ServicerContext
    ) -> pb.LeaderboardResponse:
        return self._reads().leaderboard(request)

    def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.ServicerContext
    ) -> pb.ListMatchesResponse:
        return self._reads().list_matches(request)

    def GetReplay(
        self, request: pb.GetReplayRequest, context: grpc.ServicerContext
    ) -> pb.Replay:
        reply: pb.Replay = self._guard(context, lambda: self._reads().replay(request))
        return reply

    def WatchMatches(
        self, request: pb.WatchMatchesRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.Match]:
        reads = self._reads()
        last = request.after_seq
        if not last:
            last = int(reads.store.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM matches"))
        while context.is_active():
            for match in reads.store.matches(
                game=request.game or None, after_seq=last, limit=100
            ):
                last = match.seq or last
                yield reads.match_message(match)
            time.sleep(WATCH_POLL_S)
