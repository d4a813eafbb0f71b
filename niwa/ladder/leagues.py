"""Leagues: a game's divisions, lowest first, each guarded by a boss bot (any bot, a
built-in included). A bot enters the lowest league and moves up when the lower bound
of its fitted rating (elo - ci95, as the leaderboard shows it) passes the fitted elo
of its league's boss. Bots never move down; bosses stay in the league they guard.
Matchmaking keeps to a league, with a share of games against the league above
(:func:`niwa.ladder.scheduler.pick_group`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import structlog

from niwa.ladder import elo, submission
from niwa.ladder.sparring import PREFIX
from niwa.ladder.store import ACTIVE, Store, StoreError
from niwa.ladder.store.leagues import LeagueSetup
from niwa.ladder.views import LeaguesView, LeagueView

MAX_LEAGUES = 8
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")
MAX_NAME = 32

log = structlog.get_logger("niwa.ladder.leagues")


def next_rank(rank: int, estimate: elo.Estimate, boss_elos: Sequence[float | None]) -> int:
    """The league a bot in ``rank`` belongs to now: up past every boss whose elo its
    lower bound exceeds (``boss_elos`` by rank, None: the boss is not rated yet), never
    down, and never above the top league."""
    lower = estimate.elo - estimate.ci95
    while rank < len(boss_elos) - 1:
        boss = boss_elos[rank]
        if boss is None or lower <= boss:
            break
        rank += 1
    return rank


def league_of(
    setup: LeagueSetup, reached: Mapping[int, int], bot_ids: Sequence[int]
) -> dict[int, int]:
    """bot id -> its league's rank: bosses in the league they guard, others where they
    reached (the lowest if never promoted)."""
    bosses = {league.boss_bot_id: league.rank for league in setup.leagues}
    return {b: bosses.get(b, reached.get(b, 0)) for b in bot_ids}


def promote(
    store: Store, setup: LeagueSetup, fit: Mapping[int, elo.Estimate],
    logger: structlog.typing.FilteringBoundLogger | None = None,
) -> list[int]:
    """Move up every bot of ``setup.game`` whose fit passed its boss; return their ids
    (each logged as ``league_promoted`` on ``logger``, the runner's with its bound
    context, or this module's)."""
    bound = (logger or log).bind(game=setup.game)
    boss_elos = [
        fit[league.boss_bot_id].elo if league.boss_bot_id in fit else None
        for league in setup.leagues
    ]
    bosses = {league.boss_bot_id for league in setup.leagues}
    reached = store.leagues.ranks(setup.game)
    moved = []
    for bot_id, estimate in fit.items():
        if bot_id in bosses:
            continue
        rank = reached.get(bot_id, 0)
        new = next_rank(rank, estimate, boss_elos)
        if new > rank:
            store.leagues.promote(setup.game, bot_id, new)
            moved.append(bot_id)
            bound.info(
                "league_promoted", bot_id=bot_id,
                league=setup.leagues[new].name, lower_bound=round(estimate.elo - estimate.ci95, 1),
                boss_elo=round(boss_elos[rank] or 0.0, 1),
            )  # fmt: skip
    return moved


def parse_share(text: str) -> float:
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise StoreError(f"--share-above {text!r}: give a fraction from 0 to 1, e.g. 0.2")
    return share


def configure(store: Store, game: str, specs: Sequence[str], share: float) -> LeagueSetup:
    """Set ``game``'s leagues from ``NAME:BOSS`` specs, lowest first; a boss is a bot
    of the game (id, name or name@version) or ``builtin:NAME`` (added as the system
    owner's active bot, as sparring partners are)."""
    if not 1 <= len(specs) <= MAX_LEAGUES:
        raise StoreError(f"give 1 to {MAX_LEAGUES} leagues as NAME:BOSS, lowest first")
    chosen: list[tuple[str, int]] = []
    for spec in specs:
        name, sep, boss = spec.partition(":")
        if not sep or not boss:
            raise StoreError(f"{spec!r}: write a league as NAME:BOSS, e.g. bronze:builtin:random")
        if not 1 <= len(name) <= MAX_NAME or not set(name) <= NAME_CHARS:
            raise StoreError(
                f"league name {name!r}: use 1-{MAX_NAME} lowercase letters, digits, - _ ."
            )
        if name in {n for n, _ in chosen}:
            raise StoreError(f"league {name!r} is named twice: give each league its own name")
        boss_id = _boss(store, game, boss)
        if boss_id in {b for _, b in chosen}:
            raise StoreError(f"{boss!r} guards two leagues: give each league its own boss")
        chosen.append((name, boss_id))
    store.leagues.replace(game, chosen, share)
    setup = store.leagues.setup(game)
    assert setup is not None  # just written
    return setup


def _boss(store: Store, game: str, text: str) -> int:
    if text.startswith(PREFIX):
        return submission.builtin_bot(store, text.removeprefix(PREFIX), game, ACTIVE).id
    bots = store.bots.bots(game, [ACTIVE])
    if text.isdigit():
        found = [b for b in bots if b.id == int(text)]
    else:
        name, _, version = text.partition("@")
        found = [b for b in bots if b.name.lower() == name.lower()
                 and (not version or b.version == version)]  # fmt: skip
    if len(found) != 1:
        raise StoreError(
            f"boss {text!r}: {'no' if not found else 'more than one'} active bot of {game} "
            "by that id or name: give its id or name@version (niwa ladder bots), or builtin:NAME"
        )
    return found[0].id


def view(store: Store, game: str) -> LeaguesView:
    """``game``'s leagues with their bosses and how many bots each holds."""
    setup = store.leagues.setup(game)
    if setup is None:
        return LeaguesView(game, 0.0, ())
    active = [b.id for b in store.bots.bots(game, [ACTIVE])]
    where = league_of(setup, store.leagues.ranks(game), active)
    bosses = {league.boss_bot_id for league in setup.leagues}
    return LeaguesView(game, setup.share_above, tuple(
        LeagueView(
            league.name,
            store.bots.bot(league.boss_bot_id).label,
            sum(1 for b, r in where.items() if r == league.rank and b not in bosses),
        )
        for league in setup.leagues
    ))  # fmt: skip


def set_or_clear(store: Store, game: str, specs: Sequence[str], share: float) -> LeaguesView:
    """Set ``game``'s leagues (:func:`configure`), or clear them when ``specs`` is empty."""
    if not 0.0 <= share <= 1.0:
        raise StoreError(f"share above {share}: give a fraction from 0 to 1, e.g. 0.2")
    if specs:
        configure(store, game, specs, share)
    else:
        store.leagues.clear(game)
    return view(store, game)
