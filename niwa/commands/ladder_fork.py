"""``niwa ladder fork MATCH --at N --seat K --bot NAME@VERSION``: ask the ladder to replay
a finished match from step N with another bot of yours in your seat K, an unrated match
it queues (docs/ladder.md, "Forks"; your token)."""

from __future__ import annotations

import argparse

from niwa.commands import ladder as cli
from niwa.ladder import report
from niwa.ladder.inputs import MAX_ID
from niwa.referee.text import printable

#: The largest step or seat the request's int32 fields carry.
MAX_INT32 = 2**31 - 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "fork", help="replay a finished match from step N with another version of yours",
        description="Queue an unrated match that plays MATCH's first N steps as recorded, "
        "then on with your bot NAME@VERSION in seat K (a seat of one of your bots) and "
        "the other seats' bots as they were. Prints the new match's id; its page shows "
        "it live. At most 3 of your forks wait at once and 10 are asked for an hour.",
    )  # fmt: skip
    p.add_argument("match_id", type=cli._number("match id", MAX_ID), metavar="MATCH",
                   help="a finished match (niwa ladder matches)")
    p.add_argument("--at", type=cli._number("--at", MAX_INT32), required=True, metavar="N",
                   help="the step to play on from (0: the start)")
    p.add_argument("--seat", type=cli._number("--seat", MAX_INT32), required=True,
                   metavar="K", help="your bot's seat in MATCH")
    p.add_argument("--bot", required=True, metavar="NAME@VERSION",
                   help="your other bot for the game (or its id): active, superseded, "
                   "retired or suspended")
    cli._json_arg(p)
    cli._server_args(p, token=True)
    p.set_defaults(run=_fork)


def _fork(args: argparse.Namespace) -> int:
    match = cli._remote(
        args, lambda ladder: ladder.fork_match(args.match_id, args.at, args.seat, args.bot),
        cli._token(args),
    )  # fmt: skip
    if args.json:
        report.print_json({"match": report.matches_json([match])["matches"][0]})
    else:
        print(f"match {match.id} queued: {printable(report.fork_line(match))}")
    return 0
