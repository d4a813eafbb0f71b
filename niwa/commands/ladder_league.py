"""``niwa ladder league set|show|clear``: a game's leagues, each guarded by a boss bot
(docs/ladder.md, "Leagues"). Setting and clearing are an admin's: whoever holds the
store (--db), as with niwa ladder user add."""

from __future__ import annotations

import argparse

from niwa.cli import UsageError
from niwa.commands import ladder as cli
from niwa.ladder import leagues, report
from niwa.ladder.store import ACTIVE, Store, StoreError
from niwa.ladder.store.leagues import LeagueSetup
from niwa.referee.logs import configure_cli_logging
from niwa.referee.text import printable

NEEDS_STORE = (
    "league settings are an admin's: give --db (and --data) of the ladder's store; "
    "the server has no league call yet"
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("league", help="set, show or clear a game's leagues and bosses")
    actions = p.add_subparsers(dest="league_command", metavar="ACTION", required=True)

    p = actions.add_parser(
        "set", help="give GAME leagues, lowest first, each with its boss bot",
        description="Give GAME its leagues, lowest first: NAME:BOSS each, BOSS a bot of the "
        "game (id, name or name@version) or builtin:NAME. A bot moves up when the lower "
        "bound of its rating interval passes its league's boss, never down. Setting the "
        "leagues again starts every bot in the lowest. An admin command: give --db.",
    )  # fmt: skip
    p.add_argument("game", help="the game, e.g. blossom")
    p.add_argument("leagues", nargs="+", metavar="NAME:BOSS",
                   help=f"1-{leagues.MAX_LEAGUES} leagues, e.g. bronze:builtin:random "
                   "silver:builtin:greedy")
    p.add_argument("--share-above", default="0.2", metavar="FRACTION",
                   help="the share of tables drawn from the league above (default 0.2)")
    cli._read_args(p)
    p.set_defaults(run=_set)

    p = actions.add_parser("show", help="a game's leagues, bosses and how many bots each holds")
    p.add_argument("game", help="the game")
    _json(p)
    cli._read_args(p)
    p.set_defaults(run=_show)

    p = actions.add_parser("clear", help="remove a game's leagues (matchmaking as without)")
    p.add_argument("game", help="the game")
    cli._read_args(p)
    p.set_defaults(run=_clear)


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; its shape is in docs/ladder.md)")


def _store(args: argparse.Namespace) -> Store:
    cli._check_game(args.game)
    if not args.db:
        raise UsageError(NEEDS_STORE)
    configure_cli_logging()  # warnings only, on stderr: stdout is the answer
    return cli._open_store(args, create=False)


def _set(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        setup = leagues.configure(
            store, args.game, args.leagues, leagues.parse_share(args.share_above)
        )
        print(_describe(store, setup))
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        store.close()
    return 0


def _show(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        setup = store.leagues.setup(args.game)
        if args.json:
            report.print_json({"leagues": None if setup is None else _json_of(store, setup)})
        elif setup is None:
            print(f"{args.game} has no leagues (niwa ladder league set {args.game} NAME:BOSS ...)")
        else:
            print(_describe(store, setup))
    finally:
        store.close()
    return 0


def _clear(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.leagues.clear(args.game)
    finally:
        store.close()
    print(f"{args.game} has no leagues now: its matchmaking ignores leagues")
    return 0


def _rows(store: Store, setup: LeagueSetup) -> list[tuple[str, str, int]]:
    """(league, boss label, bots in it besides the boss), lowest first."""
    active = [b.id for b in store.bots.bots(setup.game, [ACTIVE])]
    where = leagues.league_of(setup, store.leagues.ranks(setup.game), active)
    bosses = {league.boss_bot_id for league in setup.leagues}
    return [
        (
            league.name,
            store.bots.bot(league.boss_bot_id).label,
            sum(1 for b, r in where.items() if r == league.rank and b not in bosses),
        )
        for league in setup.leagues
    ]


def _describe(store: Store, setup: LeagueSetup) -> str:
    lines = [f"{setup.game}: {len(setup.leagues)} leagues, lowest first; "
             f"{setup.share_above:.0%} of tables against the league above"]  # fmt: skip
    for name, boss, bots in _rows(store, setup):
        lines.append(f"  {name:<16} boss {printable(boss, 60):<30} {bots} bots")
    return "\n".join(lines)


def _json_of(store: Store, setup: LeagueSetup) -> dict[str, object]:
    return {
        "game": setup.game,
        "share_above": setup.share_above,
        "leagues": [
            {"name": name, "boss": boss, "bots": bots} for name, boss, bots in _rows(store, setup)
        ],
    }
