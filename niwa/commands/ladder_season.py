"""``niwa ladder season start|list|show``: start a season (an admin: the store with
--db, or the server with an admin token) and read the seasons and their standings
(docs/ladder.md, "Seasons")."""

from __future__ import annotations

import argparse

from niwa.cli import UsageError
from niwa.commands import ladder as cli
from niwa.ladder import report, seasons
from niwa.ladder.client import LadderClient
from niwa.ladder.reads import Reads, season_view
from niwa.ladder.store import StoreError
from niwa.ladder.views import Leaderboard, SeasonView
from niwa.referee.logs import configure_cli_logging
from niwa.referee.text import printable


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("season", help="start a ladder season, list seasons, show one")
    actions = p.add_subparsers(dest="season_command", metavar="ACTION", required=True)

    p = actions.add_parser(
        "start", help="end the current season (its standings frozen) and start NAME",
        description="End the current season, keeping its leaderboards readable as they "
        "stand now, and start season NAME: every rating starts over; bots stay submitted, "
        "replays and logs are kept. The rated matches still queued are dropped. An admin "
        "command: give --db (the store), or --server with an admin token.",
    )  # fmt: skip
    p.add_argument("name", help="the new season's name: 1-32 lowercase letters, digits, . - _")
    p.add_argument("--games", nargs="+", default=[], metavar="GAME",
                   help="the games the season plays (default: every game of the ladder)")
    p.add_argument("--time-control", default="", metavar="TC",
                   help="per decision + bank, e.g. 2s+60s (default: the ladder's own, "
                   "niwa ladder serve --time)")
    _json(p)
    cli._read_args(p, token=True)
    p.set_defaults(run=_start)

    p = actions.add_parser("list", help="the seasons, newest first (at most 100)")
    _json(p)
    cli._read_args(p, token=True)
    p.set_defaults(run=_list)

    p = actions.add_parser(
        "show", help="a season's rules and leaderboards (an ended one's, frozen at its end)"
    )
    p.add_argument("name", help="the season (niwa ladder season list)")
    p.add_argument("game", nargs="?", default="", help="one game (default: all)")
    _json(p)
    cli._read_args(p, token=True)
    p.set_defaults(run=_show)


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; its shape is in docs/ladder.md)")


def _start(args: argparse.Namespace) -> int:
    for game in args.games:
        cli._check_game(game)
    games = tuple(args.games)
    if args.db:  # whoever holds the store administers it, as with niwa ladder user add
        configure_cli_logging()  # warnings only, on stderr: stdout is the answer
        store = cli._open_store(args, create=False)
        try:
            season = season_view(seasons.start(store, args.name, games, args.time_control))
        except StoreError as e:
            raise UsageError(str(e)) from None
        finally:
            store.close()
    else:
        season = cli._remote(
            args, lambda ladder: ladder.start_season(args.name, games, args.time_control),
            cli._token(args),
        )  # fmt: skip
    if args.json:
        report.print_json({"season": report.season_json(season)})
    else:
        print(f"season {printable(season.name, 40)} started; the previous season's "
              "standings are frozen (niwa ladder season show NAME)")
    return 0


def _list(args: argparse.Namespace) -> int:
    found = cli._read(args, lambda ladder: ladder.seasons())
    if args.json:
        report.print_json({"seasons": [report.season_json(s) for s in found]})
    else:
        print(report.seasons(found))
    return 0


def _show(args: argparse.Namespace) -> int:
    cli._check_game(args.game)

    def read(ladder: Reads | LadderClient) -> tuple[SeasonView, tuple[Leaderboard, ...]]:
        (season,) = ladder.seasons(args.name)
        return season, ladder.leaderboards(args.game, args.name)

    season, boards = cli._read(args, read)
    if args.json:
        report.print_json({"season": report.season_json(season), **report.leaderboard_json(boards)})
        return 0
    print(report.seasons([season]))
    for board in boards:
        print("\n" + report.leaderboard(board))
    if not boards:
        print("\nno leaderboards: no game had bots in this season")
    return 0
