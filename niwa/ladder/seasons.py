"""Ladder seasons: an admin starts one, the ratings start over, and the season that
ends keeps its leaderboards frozen, readable as they stood at its end.

Starting a season is one transaction that holds the commit lock (``Dialect.seq_lock``),
so no match is rated between the leaderboards it freezes and the ratings it resets:
the frozen rows are exactly what a leaderboard read just before the start showed. The
rated matches still queued are failed (:data:`ENDED_UNPLAYED`); one still running is
recorded when it finishes, in its own season, without changing any rating. Bots stay
submitted; replays and logs are untouched. A season may limit the games the runner
schedules and set their time control (:class:`Rules`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import structlog

from niwa.ladder.reads import Reads, known_games
from niwa.ladder.store import FrozenBoard, Season, Standing, Store, StoreError
from niwa.ladder.store.seasons import ENDED_UNPLAYED, season_name_problem
from niwa.referee.clock import TimeControl

__all__ = ["ENDED_UNPLAYED", "Rules", "rules", "start"]

log = structlog.get_logger("niwa.ladder.seasons")


def start(
    store: Store,
    name: str,
    games: Sequence[str] = (),
    time_control: str = "",
    ladder_games: Iterable[str] | None = None,
) -> Season:
    """End the current season (its leaderboards frozen) and start season ``name``
    playing ``games`` (empty: all of the ladder's) at ``time_control`` ("": the
    runner's). Refuses (StoreError naming the fix) a bad or taken name, an unknown game
    or a malformed time control, before changing anything."""
    problem = season_name_problem(name)
    if problem:
        raise StoreError(problem)
    known = known_games(ladder_games)
    unknown = sorted(set(games) - known)
    if unknown:
        raise StoreError(
            f"no game {unknown[0][:64]!r} on this ladder: a season plays some of "
            f"{', '.join(sorted(known))}"
        )
    if time_control:
        try:
            time_control = str(TimeControl.parse(time_control))
        except ValueError as e:
            raise StoreError(str(e)) from None
    with store.db.transaction() as db:
        db.execute(db.dialect.seq_lock)  # no match commits until the ratings are reset
        if store.seasons.named(name) is not None:
            raise StoreError(f"season {name!r} exists already: give the new season another name")
        ended = store.seasons.current()
        boards = [
            FrozenBoard(
                board.game,
                board.matches,
                [
                    Standing(
                        game=board.game, rank=row.rank, bot_id=row.bot.id, elo=row.elo,
                        ci95=row.ci95, running_elo=row.bot.elo, games=row.bot.games,
                        wins=row.bot.wins, status=row.bot.status, provisional=row.provisional,
                        by_players=tuple((p.players, p.elo, p.ci95) for p in row.by_players),
                    )
                    for row in board.rows
                ],
                board.rating,
                [(s.players, s.seat, s.elo, s.ci95) for s in board.seat_effects],
            )
            for board in Reads(store, ladder_games, trusted=True).leaderboards()
        ]  # fmt: skip
        season = store.seasons.close_and_open(ended, boards, name, sorted(set(games)), time_control)
    log.info(
        "season_started", season=season.name, ended=ended.name, games=list(season.games),
        time_control=season.time_control, boards_frozen=len(boards),
    )  # fmt: skip
    return season


@dataclass(frozen=True)
class Rules:
    """What the runner plays in the current season."""

    season: str
    games: tuple[str, ...]  # the runner's games this season plays, in the runner's order
    time_control: str


def rules(store: Store, ladder_games: Sequence[str], time_control: str) -> Rules:
    """The current season's games among ``ladder_games`` (all of them when the season
    names none) and its time control (``time_control``, the runner's, when it sets none)."""
    season = store.seasons.current()
    games = tuple(g for g in ladder_games if not season.games or g in season.games)
    return Rules(season.name, games, season.time_control or time_control)
