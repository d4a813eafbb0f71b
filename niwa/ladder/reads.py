"""The ladder's reads over one store: leaderboards, bots, matches, replays, bot logs.

They return the ladder's own types (``niwa.ladder.views``): the gRPC servicer
(``niwa.ladder.service``) answers with them, and the CLI, given ``--db``, calls them
directly, so both print the same thing, and both refuse malformed requests the same
way (:class:`StoreError` with one line, or one of its kinds below).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import structlog

from niwa import engine
from niwa.ladder import elo, leagues, seat_stats, sparring, tails
from niwa.ladder.db import Row
from niwa.ladder.inputs import MAX_TEXT as MAX_TEXT
from niwa.ladder.inputs import NotFound as NotFound
from niwa.ladder.inputs import check_id as check_id
from niwa.ladder.inputs import check_text as check_text
from niwa.ladder.inputs import parse_id
from niwa.ladder.statuses import MatchKind, MatchState
from niwa.ladder.store import (
    ACTIVE,
    DONE,
    REJECTED,
    SYSTEM_OWNER,
    Bot,
    Match,
    Owner,
    Season,
    Store,
    StoreError,
    tables,
)
from niwa.ladder.store.ratings import IN_SEASON, PAIRWISE
from niwa.ladder.views import (
    BotListing,
    BotLogs,
    BotTables,
    GameStatus,
    LadderBot,
    Leaderboard,
    LeaderboardRow,
    MatchQuery,
    MatchView,
    PairRecord,
    PlayerCountElo,
    RatingPoint,
    Replay,
    SeasonView,
    SeatAdvantage,
    SeatLine,
    SeatLog,
    SeatOutcome,
    SeatResult,
    SeatTotals,
)
from niwa.referee.failures import SeatStatus
from niwa.referee.private import public_replay

#: Matches sent per store query while a watcher catches up.
WATCH_BATCH = 100
#: ListMatches answers at most this many per call; page with ``before_id``.
MAX_LIST = 200
DEFAULT_LIST = 20
STATES = tuple(MatchState)
#: The state a public read shows for a finished match whose duplicate round still plays.
WAITING = "waiting"
#: Seasons one read lists at most, newest first (the API's ListSeasons, the web page).
MAX_SEASONS = 100
#: Rating-history rows one read takes: the newest of a game (or a bot); plots thin them.
HISTORY_ROWS = 4000

log = structlog.get_logger("niwa.ladder.api")


class Denied(StoreError):
    """The caller may not read this (gRPC PERMISSION_DENIED)."""


class NeedsToken(StoreError):
    """Only a known caller may read this, and the call came without a token (gRPC
    UNAUTHENTICATED)."""


class ReplayTampered(StoreError):
    """A replay file no longer matches the SHA-256 recorded when its match finished
    (gRPC DATA_LOSS)."""


def bot_view(bot: Bot, stderr_tail: Iterable[str] = ()) -> LadderBot:
    return LadderBot(
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
        stderr_tail=tuple(stderr_tail),
    )


def season_view(season: Season) -> SeasonView:
    return SeasonView(
        name=season.name, started_at=season.started_at, ended_at=season.ended_at or 0.0,
        games=season.games, time_control=season.time_control, current=season.current,
    )  # fmt: skip


def known_games(games: Iterable[str] | None = None) -> frozenset[str]:
    """The ladder's games and every registered one (a store may hold bots of both)."""
    return frozenset(games or ()) | frozenset(engine.games())


def check_game(name: str, games: frozenset[str]) -> str | None:
    """A game filter: None for all, else a known game's name."""
    if not name:
        return None
    check_text("the game name", name)
    if name not in games:
        raise NotFound(f"no game {name!r} on this ladder: games are {', '.join(sorted(games))}")
    return name


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

    def list_bots(self, game_name: str = "", everyone: bool = False) -> BotListing:
        """The active bots (``everyone``: also pending, rejected, retired, ...), of one
        game or all, and whether each game can make a match."""
        statuses = None if everyone else [ACTIVE]
        game = self.game(game_name)
        bots = self.store.bots.bots(game, statuses)
        return BotListing(
            bots=tuple(bot_view(b, self._verdict_tail(b)) for b in bots),
            games=tuple(self.game_status(g) for g in ([game] if game else self.ladder_games)),
        )

    def _verdict_tail(self, bot: Bot) -> tuple[str, ...]:
        """A bot rejected because it went out in validation: the end of its stderr
        there, for its owner."""
        if bot.status != REJECTED or not self.may_read_logs(bot.owner_id):
            return ()
        return self.store.matches.validation_tail(bot.id)

    def game_status(self, game: str) -> GameStatus:
        """Whether ``game`` can make a match; said to be waiting only once a bot has
        been submitted to it (a game nobody plays is not news)."""
        bots = self.store.bots.bots(game)
        active = sum(b.status == ACTIVE for b in bots)
        need = sparring.needed(engine.load(game).info.min_players)
        submitted = any(b.owner != SYSTEM_OWNER for b in bots)
        entrants = sum(b.status == ACTIVE and b.owner != SYSTEM_OWNER for b in bots)
        partners = bool(sparring.kept(self.store))
        return GameStatus(
            game=game, active=active, needed=need,
            waiting=sparring.waiting(active, need, entrants if partners else None)
            if submitted else "",
        )  # fmt: skip

    def leaderboards(self, game_name: str = "", season_name: str = "") -> tuple[Leaderboard, ...]:
        """One game's leaderboard, or every game's that has bots: the current season's,
        or as an ended season's stood at its end (``season_name``)."""
        game = self.game(game_name)
        season = self.season(season_name)
        if not season.current:
            return self._frozen(season, game)
        games = [game] if game else self.store.bots.games_with_bots()
        return tuple(dataclasses.replace(self._board(g), season=season.name) for g in games)

    def season(self, name: str = "") -> Season:
        """The season named ``name`` ("": the current one)."""
        if not name:
            return self.store.seasons.current()
        found = self.store.seasons.named(check_text("the season name", name))
        if found is None:
            raise NotFound(
                f"no season {name!r} on this ladder: see niwa ladder season list"
            )
        return found

    def seasons(self, name: str = "", limit: int = MAX_SEASONS) -> tuple[SeasonView, ...]:
        """The newest ``limit`` seasons (at most MAX_SEASONS), or the one named ``name``."""
        if name:
            return (season_view(self.season(name)),)
        return tuple(season_view(s) for s in self.store.seasons.seasons(min(limit, MAX_SEASONS)))

    def _frozen(self, season: Season, game: str | None) -> tuple[Leaderboard, ...]:
        """An ended season's leaderboards, each row as it stood at the season's end."""
        boards = []
        for frozen in self.store.seasons.boards(season.id):
            if game is not None and frozen.game != game:
                continue
            bots = {b.id: b for b in self.store.bots.bots(frozen.game)}
            rows = tuple(
                LeaderboardRow(
                    rank=s.rank,
                    bot=dataclasses.replace(
                        bot_view(bots[s.bot_id]), status=s.status, elo=s.running_elo,
                        games=s.games, wins=s.wins,
                    ),
                    elo=s.elo,
                    ci95=s.ci95,
                    provisional=s.provisional,
                    by_players=tuple(PlayerCountElo(*count) for count in s.by_players),
                )
                for s in frozen.rows
            )  # fmt: skip
            boards.append(Leaderboard(
                frozen.game, frozen.matches, rows, season.name, frozen.rating,
                tuple(SeatAdvantage(*effect) for effect in frozen.seat_effects),
            ))  # fmt: skip
        return tuple(boards)

    def _board(self, game: str) -> Leaderboard:
        bots = self.store.bots.bots(game, [ACTIVE])
        rating = self.store.ratings.rating()
        by_players: dict[int, tuple[PlayerCountElo, ...]] = {}
        seat_effects: tuple[SeatAdvantage, ...] = ()
        if rating == PAIRWISE:
            estimates = self.store.ratings.rated_fit(game, {b.id for b in bots})
        else:
            standing = self.store.ratings.pl_standing(game, {b.id for b in bots})
            estimates = standing.ratings
            for n, fitted in standing.by_players.items():
                for bot_id, e in fitted.items():
                    by_players[bot_id] = (*by_players.get(bot_id, ()),
                                          PlayerCountElo(n, e.elo, e.ci95))
            seat_effects = tuple(
                SeatAdvantage(s.players, s.seat, s.effect.elo, s.effect.ci95)
                for s in standing.seats
            )
        unrated = elo.Estimate(elo.BASE, float("inf"))
        ranked = sorted(
            bots,
            key=lambda b: (b.id not in estimates, -estimates.get(b.id, unrated).elo, b.name),
        )
        places = self._league_places(game, [b.id for b in bots], estimates)
        settled = self.store.ratings.settled(game)
        rows = tuple(
            LeaderboardRow(
                rank=rank,
                bot=bot_view(b),
                elo=estimates.get(b.id, unrated).elo,
                ci95=estimates.get(b.id, unrated).ci95,
                provisional=b.id not in settled,
                by_players=by_players.get(b.id, ()),
                **places.get(b.id, {}),
            )
            for rank, b in enumerate(ranked, start=1)
        )
        return Leaderboard(
            game=game, matches=self.store.ratings.rated_count(game), rows=rows,
            rating=rating, seat_effects=seat_effects,
        )  # fmt: skip

    def _league_places(
        self, game: str, bot_ids: list[int], estimates: Mapping[int, elo.Estimate]
    ) -> dict[int, dict[str, Any]]:
        """bot id -> its row's league, next boss and that boss's Elo ({}: no leagues)."""
        setup = self.store.leagues.setup(game)
        if setup is None:
            return {}
        bosses = {league.boss_bot_id for league in setup.leagues}
        places: dict[int, dict[str, Any]] = {}
        for bot_id, rank in leagues.league_of(
            setup, self.store.leagues.ranks(game), bot_ids
        ).items():
            place: dict[str, Any] = {"league": setup.leagues[rank].name}
            boss_id = setup.leagues[rank].boss_bot_id
            if bot_id not in bosses and rank < len(setup.leagues) - 1:
                place["next_boss"] = self.store.bots.bot(boss_id).label
                place["next_boss_elo"] = estimates.get(boss_id, elo.Estimate(elo.BASE, 0)).elo
            places[bot_id] = place
        return places

    def withheld(self, match: Match) -> bool:
        """Is ``match`` finished while another of its duplicate round (same seed, so the
        same deals) is still queued or running? Then its seed, result, replay and logs
        would show the running one's hidden cards: only admins and ``--db`` reads see
        them until the whole round has ended."""
        if match.duplicate_group is None or match.state != DONE or self._sees_all():
            return False
        return self._siblings_after(match, None) > 0

    def round_unfinished(self, match: Match) -> bool:
        """Is another match of ``match``'s duplicate round queued or running? (Its deals
        are this one's: watching this one live would show that one's hidden cards.)"""
        return match.duplicate_group is not None and self._siblings_after(match, None) > 0

    def _sees_all(self) -> bool:
        return self.trusted or (self.viewer is not None and self.viewer.is_admin)

    def _siblings_after(self, match: Match, seq: int | None) -> int:
        """How many others of ``match``'s round are queued or running (or, given
        ``seq``, finished after it)."""
        later = " OR seq > ?" if seq is not None else ""
        found = self.store.db.scalar(
            "SELECT COUNT(*) FROM matches WHERE duplicate_group = ? AND id <> ? "
            f"AND (state IN ('{MatchState.QUEUED}', '{MatchState.RUNNING}'){later})",
            (match.duplicate_group, match.id, *([] if seq is None else [seq])),
        )
        return int(found)

    def match_view(self, match: Match) -> MatchView:
        if self.withheld(match):
            return self._waiting_view(match)
        bots = {b: self.store.bots.bot(b) for b in set(match.seats)}
        results = []
        for r in self.store.matches.results(match.id):
            bot = bots.get(r.bot_id)
            out = r.status != SeatStatus.OK
            results.append(SeatResult(
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
                stderr_tail=tuple(r.stderr_tail)
                if bot is not None and self.may_read_logs(bot.owner_id) else (),
            ))  # fmt: skip
        return MatchView(
            id=match.id,
            game=match.game,
            game_version=match.game_version,
            kind=match.kind,
            # the seed decides the hidden cards: nobody learns it before the end
            seed=match.seed if match.state == DONE or self.trusted else 0,
            options_json=json.dumps(match.options, sort_keys=True),
            state=match.state,
            seats=tuple(match.seats),
            results=tuple(results),
            created_at=match.created_at,
            started_at=match.started_at or 0.0,
            finished_at=match.finished_at or 0.0,
            wall_s=match.wall_s or 0.0,
            decisions=match.decisions or 0,
            error=match.error,
            seq=match.seq or 0,
            replay_sha256=match.replay_sha256 or "",
            duplicate_group=match.duplicate_group or 0,
            **self._fork_fields(match),
        )

    def _fork_fields(self, match: Match) -> dict[str, int]:
        fork = self.store.forks.fork(match.id) if match.kind == MatchKind.FORKED else None
        if fork is None:
            return {}
        return {"fork_of": fork.origin_id, "fork_at": fork.step, "fork_seat": fork.seat}

    def _waiting_view(self, match: Match) -> MatchView:
        """A finished match of a round still playing, as the public sees it: who sits
        where, nothing the deals decide (no seed, result, length or replay digest)."""
        return MatchView(
            id=match.id, game=match.game, game_version=match.game_version, kind=match.kind,
            seed=0, options_json=json.dumps(match.options, sort_keys=True), state=WAITING,
            seats=tuple(match.seats), results=(), created_at=match.created_at,
            started_at=match.started_at or 0.0, finished_at=0.0, wall_s=0.0, decisions=0,
            error="", seq=match.seq or 0, replay_sha256="",
            duplicate_group=match.duplicate_group or 0,
        )  # fmt: skip

    def _refuse_withheld(self, match: Match, what: str) -> None:
        if self.withheld(match):
            raise StoreError(
                f"match {match.id} is waiting for its duplicate round "
                f"(group {match.duplicate_group}): its {what} is withheld until every "
                "match of the round has finished, as its deals are theirs too"
            )

    def list_matches(self, request: MatchQuery) -> tuple[MatchView, ...]:
        if request.limit < 0:
            raise StoreError(
                f"limit {request.limit}: give 1 to {MAX_LIST} (0: {DEFAULT_LIST}), "
                "and page with before_id"
            )
        if request.state and check_text("the state", request.state) not in STATES:
            raise StoreError(f"state {request.state!r}: one of {', '.join(STATES)}")
        game = self.game(request.game)
        bot_ids = None
        if request.bot:
            bot_ids = [b.id for b in self.bots_named(request.bot, game)]
        matches = self.store.matches.matches(
            game=game,
            bot_id=check_id("bot", request.bot_id, optional=True) or None,
            bot_ids=bot_ids,
            state=request.state or None,
            limit=min(request.limit or DEFAULT_LIST, MAX_LIST),
            before_id=check_id("before_id", request.before_id, optional=True) or None,
        )
        return tuple(self.match_view(m) for m in matches)

    def bots_named(self, text: str, game: str | None = None) -> list[Bot]:
        """The bots ``text`` names: a name (every version), ``name@version``, or an id."""
        check_text("the bot", text)
        if text.isdigit():  # any script's digits: parse_id takes only ASCII ones
            bot_id = parse_id("bot", text)
            try:
                return [self.store.bots.bot(bot_id)]
            except StoreError as e:
                raise NotFound(str(e)) from None
        name, _, version = text.partition("@")
        found = [
            b for b in self.store.bots.bots(game)
            if b.name.lower() == name.lower() and (not version or b.version == version)
        ]
        if not found:
            raise NotFound(f"no bot {text!r} on this ladder: see niwa ladder bots --all")
        return found

    def bot_logs(self, match_id: int, bot_text: str) -> BotLogs:
        """The stderr tail of the bot ``bot_text`` names in one match: its owner's and
        admins' only."""
        match = self.match(match_id)
        self._refuse_withheld(match, "logs")
        if not bot_text:
            raise StoreError("name the bot: its name, name@version or id")
        named = {b.id: b for b in self.bots_named(bot_text, match.game)}
        seats = [r for r in self.store.matches.results(match.id) if r.bot_id in named]
        if not seats:
            if not set(named) & set(match.seats):
                raise NotFound(
                    f"{bot_text!r} did not play in match {match.id}: its seats are "
                    + ", ".join(self.store.bots.bot(b).label for b in match.seats)
                )
            raise StoreError(f"match {match.id} is {match.state}: it has no logs yet")
        for r in seats:
            bot = named[r.bot_id]
            if not self.may_read_logs(bot.owner_id):
                whose = f"the logs of {bot.label} are for its owner ({bot.owner}) and admins"
                if self.viewer is None:
                    raise NeedsToken(f"{whose}, and this call has no token: pass theirs "
                                     "(--token or NIWA_TOKEN)")
                raise Denied(f"{whose}, not for {self.viewer.name}: pass their token "
                             "(--token or NIWA_TOKEN)")
        kept = tails.state(self.store, match.id, match.finished_at or 0.0)
        return BotLogs(match_id=match.id, seats=tuple(
            SeatLog(
                seat=r.seat, bot_id=r.bot_id, bot=named[r.bot_id].label, status=r.status,
                failure=r.reason if r.status != SeatStatus.OK else "",
                stderr_tail=tuple(r.stderr_tail),
                kept=kept.kept, until=kept.until,
            )
            for r in seats
        ))  # fmt: skip

    def match(self, match_id: int) -> Match:
        check_id("match", match_id)
        try:
            return self.store.matches.match(match_id)
        except StoreError as e:
            raise NotFound(str(e)) from None

    def replay(self, match_id: int) -> Replay:
        """The replay file, only if it still has the SHA-256 recorded when its match
        finished: a file changed on disk is refused (and logged), never served. The
        seats the caller may not read come without their private text
        (:func:`niwa.referee.private.public_replay`)."""
        match = self.match(match_id)
        if match.state != DONE:
            raise StoreError(
                f"match {match.id} is {match.state}: only finished matches have a replay"
            )
        self._refuse_withheld(match, "replay")
        path = self.store.files.replay_path(match.id)
        recorded = match.replay_sha256 or ""
        try:
            content = path.read_bytes()  # this node's copy, if it played the match
        except OSError as e:  # none here (a web front, another runner): the store's
            kept = self.store.files.blob(recorded) if recorded else None
            if kept is None:  # finished before the store kept replays, on another node
                raise NotFound(
                    f"the replay of match {match.id} is not in the store (it finished before "
                    f"schema 5) and this node cannot read {path} ({e.strerror or e}): "
                    "serve it from the node that played the match"
                ) from None
            content = kept
        digest = hashlib.sha256(content).hexdigest()
        if digest != recorded:
            # Only the recorded attempt's file is ever put at this path (the runner
            # renames it after the commit), so a mismatch is damage, not a replay of
            # another attempt: refused, whatever copy the store keeps.
            in_store = recorded != "" and self.store.files.blob_sizes([recorded]) != {}
            log.error(
                "replay_tampered", match_id=match.id, path=str(path), recorded=recorded,
                actual=digest, store_copy=in_store,
            )  # fmt: skip
            fix = (
                f"the store keeps the recorded copy: delete {path} and it is served"
                if in_store else "restore it from a backup"
            )
            raise ReplayTampered(
                f"the replay of match {match.id} ({path}) no longer matches its recorded "
                f"SHA-256 ({recorded[:16] or 'none recorded'}, the file has {digest[:16]}): "
                f"it was changed or damaged on disk; {fix}"
            )
        keep = self.readable_seats(match)
        cut = content if len(keep) == len(match.seats) else public_replay(content, keep)
        if cut == content:  # nothing private, or nothing the caller may not read
            return Replay(match_id=match.id, content=content, sha256=digest)
        return Replay(
            match_id=match.id, content=cut, sha256=hashlib.sha256(cut).hexdigest(),
            redacted=True,
        )  # fmt: skip

    def readable_seats(self, match: Match) -> set[int]:
        """The seats of ``match`` whose private text (debug, thinking, notes, stderr) the caller
        may read: its own bots', every seat for an admin."""
        owners = {b: self.store.bots.bot(b).owner_id for b in set(match.seats)}
        return {seat for seat, b in enumerate(match.seats) if self.may_read_logs(owners[b])}

    def head(self) -> int:
        """The finish number (seq) of the last finished match; 0 if none."""
        return int(self.store.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM matches"))

    def finished_after(self, game: str | None, seq: int) -> list[MatchView]:
        """The matches finished after ``seq``, in finishing order; the one that ends a
        duplicate round comes after the round's others a stream from ``seq`` has shown
        as waiting, now whole (a row of the same id replaces the earlier one)."""
        found: list[MatchView] = []
        for m in self.store.matches.matches(game=game, after_seq=seq, limit=WATCH_BATCH):
            found.extend(self._released_by(m, seq))
            found.append(self.match_view(m))
        return found

    def _released_by(self, match: Match, seq: int) -> list[MatchView]:
        if match.duplicate_group is None or match.seq is None or self._sees_all():
            return []
        if self._siblings_after(match, match.seq):  # not the round's last to finish
            return []
        rows = self.store.db.execute(
            "SELECT id FROM matches WHERE duplicate_group = ? AND id <> ? AND state = ? "
            "AND seq <= ? ORDER BY seq",
            (match.duplicate_group, match.id, DONE, seq),
        )
        return [self.match_view(self.store.matches.match(int(r["id"]))) for r in rows]

    # The web pages' reads: bounded, from the indexes the ladder already keeps.

    def rating_history(
        self, game: str, bot_ids: Collection[int], rows: int = HISTORY_ROWS
    ) -> dict[int, list[RatingPoint]]:
        """The incremental Elo (the one each commit stores, not the leaderboard's fit)
        of ``bot_ids`` over the newest ``rows`` rating changes of ``game`` in the current
        season, oldest first."""
        found = self.store.db.execute(
            "SELECT m.seq, h.bot_id, h.elo_after FROM matches m "
            "JOIN rating_history h ON h.match_id = m.id "
            f"WHERE m.game = ? AND m.seq IS NOT NULL AND {IN_SEASON} "
            "ORDER BY m.seq DESC LIMIT ?",
            (game, rows),
        )
        return _points(found, bot_ids)

    def bot_history(self, bot_id: int, rows: int = HISTORY_ROWS) -> list[RatingPoint]:
        """One bot's incremental Elo over its newest ``rows`` rated matches, oldest first."""
        found = self.store.db.execute(
            "SELECT m.seq, h.bot_id, h.elo_after FROM match_seats s "
            "JOIN rating_history h ON h.match_id = s.match_id AND h.bot_id = s.bot_id "
            "JOIN matches m ON m.id = s.match_id "
            "WHERE s.bot_id = ? AND m.seq IS NOT NULL ORDER BY m.seq DESC LIMIT ?",
            (check_id("bot", bot_id), rows),
        )
        return _points(found, [bot_id]).get(bot_id, [])

    def head_to_head(self, bot: LadderBot) -> list[PairRecord]:
        """The bot's rated record against each opponent it met, most met first."""
        found = self.store.db.execute(
            "SELECT p.other_id, b.name, b.version, p.meetings, p.games, p.score "
            "FROM pair_totals p JOIN bots b ON b.id = p.other_id "
            "WHERE p.game = ? AND p.bot_id = ? ORDER BY p.meetings DESC, p.other_id",
            (bot.game, bot.id),
        )
        return [
            PairRecord(
                other_id=int(r["other_id"]), other=f"{r['name']}@{r['version']}",
                meetings=int(r["meetings"]), games=float(r["games"]), score=float(r["score"]),
            )
            for r in found
        ]  # fmt: skip

    def bot_tables(self, bot: LadderBot, opponents: int = MAX_LIST) -> BotTables:
        """The bot's results by seat and player count, against the ``opponents`` it sat
        with most, and its kingmaker check over its newest tables of 3 seats or more:
        from the totals the commits keep (schema 12) and one bounded read."""
        rows = tables.seat_rows(self.store.db, bot.id)
        by_players: dict[int, list[int]] = {}
        for r in rows:
            sums = by_players.setdefault(r.players, [0, 0, 0, 0])
            for i, value in enumerate((r.matches, r.place_sum, r.place_squares, r.firsts)):
                sums[i] += value
        pairs = tables.table_pairs(self.store.db, bot.id, min(opponents, MAX_LIST))
        check = seat_stats.kingmaker(
            bot.id, tables.shared_tables(self.store.db, bot.id, seat_stats.KINGMAKER_MATCHES)
        )
        named = {p.other_id for p in pairs}
        if check.strongest is not None:
            named |= {check.strongest.other_id, check.strongest.third_id}
        return BotTables(
            by_seat=tuple(
                SeatLine(r.players, r.seat, seat_stats.places(
                    r.matches, r.place_sum, r.place_squares, r.firsts))
                for r in rows
            ),
            by_players=tuple(
                SeatLine(n, -1, seat_stats.places(*sums)) for n, sums in by_players.items()
            ),
            opponents=tuple(
                seat_stats.table_record(p.other_id, p.together, p.ahead, p.level) for p in pairs
            ),
            kingmaker=check,
            labels=self._labels(named),
        )  # fmt: skip

    def _labels(self, bot_ids: Collection[int]) -> dict[int, str]:
        if not bot_ids:
            return {}
        found = self.store.db.execute(
            f"SELECT id, name, version FROM bots WHERE id IN ({', '.join('?' for _ in bot_ids)})",
            sorted(bot_ids),
        )
        return {int(r["id"]): f"{r['name']}@{r['version']}" for r in found}

    def bot_failures(self, bot_id: int, limit: int = DEFAULT_LIST) -> list[SeatOutcome]:
        """The bot's newest seats that went out, in matches of any kind (the step it went
        out at links into the replay: none of a withheld match's)."""
        ended = "" if self._sees_all() else f"AND {_ROUND_ENDED} "
        found = self.store.db.execute(
            f"SELECT {_OUTCOME} FROM results r JOIN matches m ON m.id = r.match_id "
            "WHERE r.match_id IN (SELECT match_id FROM match_seats WHERE bot_id = ?) "
            f"AND r.bot_id = ? AND r.status <> '{SeatStatus.OK}' "
            f"{ended}ORDER BY r.match_id DESC LIMIT ?",
            (check_id("bot", bot_id), bot_id, min(limit, MAX_LIST)),
        )
        return [_outcome(r) for r in found]

    def outcomes_after(self, seq: int, matches: int = WATCH_BATCH * 10) -> list[SeatOutcome]:
        """Every seat of the next ``matches`` finished after ``seq``, in finishing order
        (finish numbers count up by one: page on from ``seq + matches``)."""
        found = self.store.db.execute(
            f"SELECT {_OUTCOME} FROM matches m JOIN results r ON r.match_id = m.id "
            "WHERE m.seq > ? AND m.seq <= ? ORDER BY m.seq, r.seat",
            (seq, seq + matches),
        )
        return [_outcome(r) for r in found]


    def seat_totals(self, seq: int) -> list[SeatTotals]:
        """Every bot's seats in the matches finished up to ``seq``, summed by the
        database (:meth:`outcomes_after` then adds the newer ones one by one)."""
        rated = self.store.db.execute(
            "SELECT r.bot_id, COUNT(*) AS n, SUM(r.place) AS places FROM matches m "
            "JOIN results r ON r.match_id = m.id WHERE m.seq <= ? "
            f"AND m.kind = '{MatchKind.RATED}' "
            "GROUP BY r.bot_id",
            (seq,),
        )
        out: dict[int, dict[str, int]] = {}
        for r in self.store.db.execute(
            "SELECT r.bot_id, r.reason, COUNT(*) AS n FROM matches m "
            "JOIN results r ON r.match_id = m.id "
            f"WHERE m.seq <= ? AND r.status <> '{SeatStatus.OK}' "
            "GROUP BY r.bot_id, r.reason",
            (seq,),
        ):
            classes = out.setdefault(int(r["bot_id"]), {})
            failure = str(r["reason"]).partition(":")[0]  # before schema 3: "CLASS: detail"
            classes[failure] = classes.get(failure, 0) + int(r["n"])
        totals = {int(r["bot_id"]): (int(r["n"]), int(r["places"])) for r in rated}
        return [
            SeatTotals(
                bot_id=bot, rated=totals.get(bot, (0, 0))[0],
                place_sum=totals.get(bot, (0, 0))[1],
                failures=tuple(sorted(out.get(bot, {}).items())),
            )
            for bot in sorted(set(totals) | set(out))
        ]  # fmt: skip


#: A finished match no public read withholds: not of a round with one still to play.
_ROUND_ENDED = (
    "(m.duplicate_group IS NULL OR NOT EXISTS (SELECT 1 FROM matches o WHERE "
    "o.duplicate_group = m.duplicate_group AND "
    f"o.state IN ('{MatchState.QUEUED}', '{MatchState.RUNNING}')))"
)

_OUTCOME = (
    "m.seq, m.id AS match_id, m.kind, r.seat, r.bot_id, r.place, r.status, r.reason, r.out_step"
)


def _outcome(row: Row) -> SeatOutcome:
    out = row["status"] != SeatStatus.OK
    return SeatOutcome(
        seq=int(row["seq"] or 0), match_id=int(row["match_id"]), kind=str(row["kind"]),
        seat=int(row["seat"]), bot_id=int(row["bot_id"]), place=int(row["place"]),
        status=str(row["status"]),
        failure=str(row["reason"]).partition(":")[0] if out else "",
        out_step=int(row["out_step"] or 0),
    )  # fmt: skip


def _points(
    rows: Iterable[Row], bot_ids: Collection[int]
) -> dict[int, list[RatingPoint]]:
    wanted = set(bot_ids)
    points: dict[int, list[RatingPoint]] = {}
    for r in rows:
        bot = int(r["bot_id"])
        if bot in wanted:
            points.setdefault(bot, []).append(
                RatingPoint(seq=int(r["seq"]), elo=float(r["elo_after"]))
            )
    return {bot: line[::-1] for bot, line in points.items()}
