"""``niwa ladder league set|show|clear``: a game's leagues, each guarded by a boss bot
(docs/ladder.md, "Leagues"). Setting and clearing are an admin's: on the store
(--db), or on the server with an admin token."""

from __future__ import annotations

import argparse

from niwa.cli import UsageError
from niwa.commands import ladder as cli
from niwa.ladder import leagues, report
from niwa.ladder.store import Store, StoreError
from niwa.ladder.views import LeaguesView
from niwa.referee.logs import configure_cli_logging
from niwa.referee.text import printable

NEEDS_STORE = "reading a game's leagues needs --db: the server shows them on each leaderboard row"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("league", help="set, show or clear a game's leagues and bosses")
    actions = p.add_subparsers(dest="league_command", metavar="ACTION", required=True)

    p = actions.add_parser(
        "set", help="give GAME leagues, lowest first, each with its boss bot",
        description="Give GAME its leagues, lowest first: NAME:BOSS each, BOSS a bot of the "
        "game (id, name or name@version) or builtin:NAME. A bot moves up when the lower "
        "bound of its rating interval passes its league's boss, never down. Setting the "
        "leagues again starts every bot in the lowest. An admin command: give --db (the "
        "store), or --server with an admin token.",
    )  # fmt: skip
    p.add_argument("game", help="the game whose leagues these are")
    p.add_argument("leagues", nargs="+", metavar="NAME:BOSS",
                   help=f"1-{leagues.MAX_LEAGUES} leagues, e.g. bronze:builtin:random "
                   "silver:builtin:greedy")
    p.add_argument("--share-above", default="0.2", metavar="FRACTION",
                   help="the share of tables drawn from the league above (default 0.2)")
    cli._read_args(p, token=True)
    p.set_defaults(run=_set)

    p = actions.add_parser("show", help="a game's leagues, bosses and how many bots each holds")
    p.add_argument("game", help="the game")
    _json(p)
    cli._read_args(p)
    p.set_defaults(run=_show)

    p = actions.add_parser("clear", help="remove a game's leagues (matchmaking as without)")
    p.add_argument("game", help="the game")
    cli._read_args(p, token=True)
    p.set_defaults(run=_clear)


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; its shape is in docs/ladder.md)")


def _store(args: argparse.Namespace) -> Store:
    configure_cli_logging()  # warnings only, on stderr: stdout is the answer
    return cli._open_store(args, create=False)


def _change(args: argparse.Namespace, specs: tuple[str, ...], share: float) -> LeaguesView:
    """Set (or with no ``specs`` clear) the leagues: on the store, or on the server."""
    cli._check_game(args.game)
    if not args.db:
        return cli._remote(
            args, lambda ladder: ladder.set_leagues(args.game, specs, share), cli._token(args)
        )
    store = _store(args)
    try:
        return leagues.set_or_clear(store, args.game, specs, share)
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        store.close()


def _set(args: argparse.Namespace) -> int:
    try:
        share = leagues.parse_share(args.share_above)
    except StoreError as e:
        raise UsageError(str(e)) from None
    print(_describe(_change(args, tuple(args.leagues), share)))
    return 0


def _show(args: argparse.Namespace) -> int:
    cli._check_game(args.game)
    if not args.db:
        raise UsageError(NEEDS_STORE)
    store = _store(args)
    try:
        view = leagues.view(store, args.game)
    finally:
        store.close()
    if args.json:
        report.print_json({"leagues": _json_of(view) if view.leagues else None})
    else:
        print(_describe(view))
    return 0


def _clear(args: argparse.Namespace) -> int:
    _change(args, (), 0.0)
    print(f"{args.game} has no leagues now: its matchmaking ignores leagues")
    return 0


def _describe(view: LeaguesView) -> str:
    if not view.leagues:
        return f"{view.game} has no leagues (niwa ladder league set {view.game} NAME:BOSS ...)"
    lines = [f"{view.game}: {len(view.leagues)} leagues, lowest first; "
             f"{view.share_above:.0%} of tables against the league above"]  # fmt: skip
    for league in view.leagues:
        lines.append(
            f"  {printable(league.name, 32):<16} boss {printable(league.boss, 60):<30} "
            f"{league.bots} bots"
        )
    return "\n".join(lines)


def _json_of(view: LeaguesView) -> dict[str, object]:
    return {
        "game": view.game,
        "share_above": view.share_above,
        "leagues": [{"name": x.name, "boss": x.boss, "bots": x.bots} for x in view.leagues],
    }
