"""``niwa ladder balance GAME`` and ``niwa ladder balance --backfill``: a game's
balance figures from the store's running sums, and filling them for the rated
matches that finished before the store kept them (docs/ladder.md, "Balance")."""

from __future__ import annotations

import argparse
import sys

from niwa.cli import UsageError
from niwa.commands import ladder as cli
from niwa.ladder import balance_backfill, balance_report, report
from niwa.ladder.balance_backfill import Progress
from niwa.ladder.store.balance import STRONG_ELO
from niwa.referee.logs import configure_cli_logging


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "balance", help="a game's balance from its rated matches (seat advantage, lead changes)",
        description="Print GAME's balance figures per player count, from rated matches "
        f"between strong bots (every seat rated at least {STRONG_ELO:.0f} before the match, "
        "none failing out) and from all "
        "rated matches: each seat's win share and mean place, lead changes, how often the "
        "last round decided the match, score margin and spread, game length, each with a "
        "95 % interval. --backfill computes them for the rated matches finished before "
        "the store kept them, from their replays.",
    )  # fmt: skip
    p.add_argument("game", nargs="?", default="", help="the game (not with --backfill)")
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; its shape is in docs/ladder.md)")
    p.add_argument("--backfill", action="store_true",
                   help="fill the figures of older rated matches from their replays, with "
                   "progress on stderr")
    p.add_argument("--limit", type=cli._number("--limit", 10**9), default=None,
                   help="--backfill: at most this many matches this time (it goes on later)")
    cli._store_args(p, default_db=cli.DEFAULT_DB)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.backfill:
        if args.game or args.json:
            raise UsageError("--backfill takes no GAME and no --json: it fills every game")
        return _backfill(args)
    if not args.game:
        raise UsageError("name the game: niwa ladder balance GAME (or --backfill)")
    if args.limit is not None:
        raise UsageError("--limit is for --backfill only")
    cli._check_game(args.game)
    configure_cli_logging()  # warnings only, on stderr: stdout is the answer
    store = cli._open_store(args, create=False)
    try:
        found = balance_report.report(store, args.game)
    finally:
        store.close()
    if args.json:
        report.print_json(balance_report.to_json(found))
    else:
        print(balance_report.describe(found))
    return 0


def _backfill(args: argparse.Namespace) -> int:
    configure_cli_logging()  # the skipped matches' warnings name their cause
    store = cli._open_store(args, create=False)

    def show(progress: Progress) -> None:
        print(
            f"balance backfill: {progress.done}/{progress.total} matches"
            f" ({progress.counted} counted, {progress.skipped} skipped)",
            file=sys.stderr, flush=True,
        )  # fmt: skip

    try:
        done = balance_backfill.backfill(store, show, args.limit)
        left = store.balance.backlog_count()
    finally:
        store.close()
    print(f"{done.counted} matches counted, {done.skipped} skipped (no usable replay),"
          f" {left} still waiting")  # fmt: skip
    return 0
