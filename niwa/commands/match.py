"""``niwa match GAME --bot A --bot B ...``: a series of games between the same bots,
with standings, Elo and LOS for two bots, and an optional SPRT that stops early."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.play import FAIL_ON_HELP, warn_isolation
from niwa.referee.failures import SeatStatus
from niwa.referee.logs import configure_cli_logging
from niwa.referee.pool import cores
from niwa.referee.text import printable
from niwa.series import ratings, schedule, stats
from niwa.series.games import FAIL_ON, GameJob, GameRecord, play_game, run_jobs
from niwa.series.headtohead import HeadToHead
from niwa.series.report import JsonLines, Live, Standings, progress
from niwa.series.setup import check_seating, entrants

# With --exit-verdict: the SPRT verdicts that are not H1, as exit codes (docs/series.md).
VERDICT_EXIT = {"H0": 3, "inconclusive": 4}

EPILOG = """\
exit codes:
  0  the series ran (whatever the SPRT's verdict: H1, H0 or inconclusive is in the
     output and in the JSON summary; with --exit-verdict, 0 means H1)
  1  the series ran, but a bot that is not built-in went OUT in at least one game
     (its reason and the end of its stderr are printed the first time), or, with
     --fail-on any, failed a decision at all (the first failure of each class is
     printed as it happens, and every bot's failures by class at the end)
  2  usage error (bad option, unknown bot or game, no sandbox)
  3  with --sprt and --exit-verdict: H0 was accepted (A is not elo1 stronger)
  4  with --sprt and --exit-verdict: inconclusive (--games ran out first)

JSON lines (--json): one {"type": "game", ...} object per finished game, then one
{"type": "summary", ...} object with the final table's numbers. See docs/series.md.
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "match",
        help="a series of games between bots: standings, Elo ± 95%%, LOS, SPRT",
        description="Plays a series of games of GAME between the given bots, several at "
        "once, each in its own worker process, with the bots sandboxed as in `niwa play`. "
        "Seats rotate; with two bots each deal is played in both seatings (--pairs). "
        "A is the first --bot, B the second: the Elo, LOS and SPRT lines are about A "
        "against B.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_common(p)
    p.add_argument("--bot", action="append", required=True, metavar="DIR_OR_BUILTIN",
                   help="a bot directory (with bot.toml) or builtin:NAME; repeat for each "
                   "bot of the series (at least two)")
    p.add_argument("--games", type=int, default=100,
                   help="games in the series at most (default 100; with --pairs rounded "
                   "up to whole deals)")
    pairs = p.add_mutually_exclusive_group()
    pairs.add_argument("--pairs", dest="pairs", action="store_true", default=None,
                       help="play every deal (seed) once in each seat rotation, one after "
                       "the other, so the luck of the deal cancels (default with two bots)")
    pairs.add_argument("--no-pairs", dest="pairs", action="store_false",
                       help="a new deal for every game; seats still rotate game by game")
    p.add_argument("--field", action="append", default=[], metavar="DIR_OR_BUILTIN",
                   help="fills the seats beyond the given bots, in turn (repeatable; "
                   "default: the given bots, as evenly as possible)")
    p.add_argument("--sprt", nargs="+", metavar="NAME=VALUE",
                   help="stop as soon as an SPRT decides whether A is stronger than B: "
                   "elo0=0 elo1=5 alpha=0.05 beta=0.05 (those are the defaults of any "
                   "left out); H1 is 'A is elo1 stronger', H0 'A is elo0 stronger'")
    p.add_argument("--exit-verdict", action="store_true",
                   help="with --sprt, put the verdict in the exit status too: 0 H1, 3 H0, "
                   "4 inconclusive (1 for a bot gone out still comes first); for CI jobs. "
                   "Off by default so exit 0 keeps meaning 'the series ran'")
    p.add_argument("--ponder", action="store_true",
                   help="let bots run between their turns (default: frozen while not "
                   "answering)")
    p.set_defaults(run=run)


def add_common(p: argparse.ArgumentParser) -> None:
    """The options ``niwa match`` and ``niwa tournament`` share."""
    p.add_argument("game", help="a registered game, e.g. blossom")
    p.add_argument("--players", type=int,
                   help="seats per game (default: one per bot, at least the game's minimum)")
    p.add_argument("--time", default="1s+30s",
                   help="per-decision time + bank, as in niwa play (default 1s+30s)")
    p.add_argument("--seed", type=int,
                   help="the series' seed, from which every game's seed is derived "
                   "(default: random, printed)")
    p.add_argument("--concurrency", type=int, default=0,
                   help="games at once, each in its own process (default: cores)")
    p.add_argument("--replays", type=Path, metavar="DIR",
                   help="write every game's replay into this directory")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option (VALUE is JSON, or a bare word); repeatable")
    p.add_argument("--json", metavar="FILE",
                   help="write JSON lines here (- for stdout): one object per game, then "
                   "a summary")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run bots as plain processes (trusted bots only)")
    p.add_argument("--fail-on", choices=FAIL_ON, default=str(SeatStatus.OUT), help=FAIL_ON_HELP)


def series_seed(args: argparse.Namespace) -> int:

    return args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)


def check_counts(args: argparse.Namespace) -> None:
    if args.concurrency < 0:
        raise UsageError("--concurrency must be at least 1 (or 0 for one per core)")
    if args.replays is not None:
        args.replays.mkdir(parents=True, exist_ok=True)


def run(args: argparse.Namespace) -> int:

    configure_cli_logging()
    check_counts(args)
    if len(args.bot) < 2:
        raise UsageError("a series needs at least two --bot (use niwa play for one game)")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.exit_verdict and args.sprt is None:
        raise UsageError("--exit-verdict needs --sprt (add e.g. --sprt elo0=0 elo1=5)")
    try:
        sprt = stats.Sprt.parse(args.sprt) if args.sprt is not None else None
        info = engine.load(args.game).info
    except engine.UnknownGame as e:
        raise UsageError(str(e).strip("'\"")) from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    players = args.players or max(len(args.bot), info.min_players)
    if players < len(args.bot):
        raise UsageError(f"{len(args.bot)} bots need --players {len(args.bot)} at least: every "
                         "bot plays every game (niwa tournament plays groups of bots)")
    if not info.min_players <= players <= info.max_players:
        raise UsageError(f"{args.game} is played by {info.min_players} to {info.max_players} "
                         f"players, not {players}: change --players")
    who = entrants(args.bot, args.field)
    ids, field_ids, spec_of = who.ids, who.field_ids, who.spec
    seats = schedule.lineup(ids, players, field_ids)
    first = check_seating(args, [spec_of[i] for i in seats])
    pairs = len(ids) == 2 if args.pairs is None else args.pairs
    turns = len(schedule.rotations(seats))
    games = args.games
    if pairs and games % turns:
        games += turns - games % turns
    seed = series_seed(args)
    workers = args.concurrency or cores()
    per_pair = 2 if pairs and players == 2 and len(ids) == 2 else 1
    duel = HeadToHead(ids[0], ids[1], per_pair, sprt)

    out = sys.stdout if args.json != "-" else sys.stderr
    print(f"{args.game}: {len(ids)} bots, {players} players, {games} games"
          f"{f' (rounded up to whole deals of {turns})' if games != args.games else ''}, "
          f"seed {seed}, time {first.time_control}, concurrency {workers}"
          f"{'' if first.sandbox else ' (NOT sandboxed)'}", file=out)
    for label, i in zip("AB", ids, strict=False):
        print(f"  {label} = {printable(i, 200)}", file=out)
    warn_isolation(first)

    jobs = [
        GameJob(
            index=n, game=args.game, bots=tuple(spec_of[b] for b in seating), ids=seating,
            seed=game_seed, time_control=args.time, options=dict(first.options),
            sandbox=first.sandbox, ponder=args.ponder,
            replay=None if args.replays is None
            else args.replays / f"{args.game}-{seed}-{n:05d}.jsonl",
            round=deal, labels=tuple(who.name[b] for b in seating),
        )
        for n, (deal, game_seed, seating) in enumerate(
            schedule.series_seatings(seats, games, pairs, seed))
    ]
    sink = JsonLines(args.json)
    try:
        return play_series(args, jobs, ids + field_ids, duel, out, seed, sink)
    finally:
        sink.close()


def play_series(
    args: argparse.Namespace,
    jobs: list[GameJob],
    ids: list[str],
    duel: HeadToHead,
    out: TextIO,
    seed: int,
    sink: JsonLines,
) -> int:
    standings = Standings(ids)
    live = Live(out)
    started = time.monotonic()
    done = 0
    dir_out = False
    records: list[GameRecord] = []

    def block() -> list[str]:
        head = progress(done, len(jobs), started)
        return [f"{head}; {'; '.join(duel.lines())}", *standings.table(),
                *standings.failure_lines()]

    def on_done(record: GameRecord) -> bool:
        nonlocal done, dir_out
        done += 1
        dir_out = dir_out or record.fails_run(args.fail_on)
        live.note(standings.add(record))
        duel.add(record)
        records.append(record)
        sink.write(record.to_json())
        live.update(block())
        return duel.verdict == "continue"

    try:
        complete = run_jobs(jobs, play_game, args.concurrency or cores(), on_done)
    except ValueError as e:  # e.g. a bot.toml changed under the series
        raise UsageError(str(e)) from None
    live.update(block(), final=True)
    fitted = ratings.fit(records)
    for line in ratings.fit_lines(fitted):
        print(line, file=out)
    if duel.sprt is not None:
        verdict = duel.verdict if duel.verdict != "continue" else "inconclusive"
        why = ("--games ran out" if verdict == "inconclusive"
               else "" if complete else f"stopped after {done} of {len(jobs)} games")
        print(f"SPRT verdict: {verdict}{f' ({why})' if why else ''}", file=out)
    sink.write({
        "type": "summary",
        "game": args.game,
        "seed": seed,
        "time": args.time,
        "games": done,
        "planned": len(jobs),
        "bots": {b: line.to_json() for b, line in standings.lines.items()},
        "head_to_head": duel.to_json(finished=True),
        "ratings": {b: {"elo": e.elo, "ci95": e.ci95} for b, e in fitted.ratings.items()},
        "seat_effects": ratings.seats_json(fitted.seats),
    })
    if dir_out:
        return 1
    if args.exit_verdict and duel.sprt is not None and duel.verdict != "H1":
        return VERDICT_EXIT["H0" if duel.verdict == "H0" else "inconclusive"]
    return 0
