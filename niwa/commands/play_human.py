"""``niwa play GAME --human [SEAT] --bot ...``: a person plays a seat in the browser.

The match and the page's server (:mod:`niwa.web.human`) run in one trio run: the
server starts first and the URL is printed, then the match plays, asking the person
through the seat's desk; once it is over, the server waits briefly for the page to get
the final board, then stops.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TextIO

import trio

from niwa.cli import UsageError
from niwa.ladder.http_server import sole
from niwa.referee.clock import HUMAN_TIME_MS, TimeControl
from niwa.referee.human import GRACE_S, Desk, shows_views
from niwa.referee.match import MatchOutcome, MatchSpec, run_match
from niwa.web.human import Table, serve_table

#: Where the page is served unless --web says otherwise: this machine only, a free port.
DEFAULT_WEB = "127.0.0.1:0"


def add_human_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--human", type=int, nargs="?", const=0, metavar="SEAT",
        help="a person plays seat SEAT (default 0) in the browser: niwa prints the "
        "page's URL; the --bot bots fill the other seats in order",
    )  # fmt: skip
    p.add_argument(
        "--human-time", default=str(TimeControl(*HUMAN_TIME_MS)), metavar="TIME",
        help="the person's time per move + bank (default %(default)s; --time is the bots')",
    )  # fmt: skip
    p.add_argument(
        "--human-name", default="human", metavar="NAME",
        help="how the replay names the person (default %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--human-grace", type=float, default=GRACE_S, metavar="SECONDS",
        help="with no page open for this long while the person is asked to move, the "
        "seat is DISCONNECTED and out (default %(default)g)",
    )  # fmt: skip


def seat_people(args: argparse.Namespace) -> None:
    """Put the person in ``args.bot`` at the seat ``--human`` names (the bots fill the
    other seats in order); UsageError for a seat the match will not have, or a bad
    --human-time or --human-grace."""
    seat = args.human
    if not 0 <= seat <= len(args.bot):
        raise UsageError(
            f"--human {seat}: with {len(args.bot)} --bot the seats are 0 to {len(args.bot)}"
        )
    if args.human_grace <= 0:
        raise UsageError("--human-grace must be above 0 seconds")
    try:
        TimeControl.parse(args.human_time)
    except ValueError as e:
        raise UsageError(f"--human-time: {e}") from None
    args.bot = [*args.bot[:seat], f"human:{args.human_name}", *args.bot[seat:]]


def play_with_people(spec: MatchSpec, args: argparse.Namespace, out: TextIO) -> MatchOutcome:
    """Play ``spec`` with the person's seat served on ``args.web`` (or DEFAULT_WEB)."""
    seat = args.human
    listen = args.web or DEFAULT_WEB
    names = [str(b.label or b) for b in spec.bots]
    desk = Desk(seat, grace_s=args.human_grace)
    table = Table(spec.game if isinstance(spec.game, str) else spec.game.info.name, names)
    key = table.seat(desk)
    spec = replace(
        spec, humans={seat: desk}, human_time=TimeControl.parse(args.human_time),
        on_step=shows_views({seat: desk}, spec.on_step),
    )  # fmt: skip

    async def main() -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            try:
                base = await nursery.start(serve_table, table, listen)
            except (OSError, ExceptionGroup) as e:
                cause = sole(e)
                if not isinstance(cause, OSError):
                    raise
                why = cause.strerror or cause
                raise UsageError(f"cannot serve the page on {listen}: {why}") from None
            print(f"play seat {seat} in your browser: {base}/play/{key}", file=out, flush=True)
            outcome = await run_match(spec)
            await table.delivered()
            nursery.cancel_scope.cancel()
        return outcome

    return trio.run(main)
