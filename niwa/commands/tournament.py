"""``niwa tournament GAME --bot ... --format round-robin|gauntlet|swiss|knockout``:
bots in groups, standings with points and the ladder's batch Elo ± 95 %, or a
single-elimination bracket; ``--progress``/``--resume`` keep and continue its games."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.knockout_seeds import read_seeding
from niwa.commands.match import add_common, series_seed
from niwa.commands.play import warn_isolation
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import MatchSpec
from niwa.referee.pool import cores
from niwa.referee.text import printable
from niwa.series import stats
from niwa.series.progress import Progress
from niwa.series.ratings import PLACKETT_LUCE, RATINGS, fit, seat_lines, seats_json
from niwa.series.report import NAME_SHOWN, JsonLines, progress
from niwa.series.setup import check_seating, entrants, parse_bots
from niwa.series.tournament import KNOCKOUT_GAMES, Knockout, Tournament, groups_of, rows, table

FORMATS = ("round-robin", "gauntlet", "swiss", "knockout")

EPILOG = """\
formats:
  round-robin  every group of P different bots (every pairing with 2 players) plays
               --rounds rounds; a round plays one deal in every seat rotation
  gauntlet     the first --bot against each group of P-1 of the others, likewise
  swiss        --rounds rounds; each round groups bots with similar points who have
               met least, one deal per group in every seat rotation; bots left over
               sit the round out (the lowest ranked of those with fewest byes)
  knockout     a single-elimination bracket of 2-player ties, seeded in the order of
               the --bot options (the first is seed 1), or with --seed-from DB by the
               ratings of a ladder store's leaderboard (bots it does not rate after
               them, in the --bot order); seed k meets seed N+1-k
               (N the next power of two), so seeds 1 and 2 can meet only in the final,
               and when the field is not a power of two the top seeds get the byes.
               A tie plays --games games (rounded up to even: each deal in both
               seatings) and the bot with more points goes through; equal points:
               the better seed. With --sprt the tie stops as soon as the SPRT of the
               better seed (A) against the other (B) decides: H1 sends A through,
               H0 sends B; undecided after --games, more points, then the better seed

resume: --progress FILE appends every finished game to FILE (fsynced as it ends);
--resume FILE continues that tournament after a crash or Ctrl-C without playing
its finished games again, and refuses other arguments (bots, game, format, ...).

standings: points are each game's share of the other seats a bot placed ahead of
(1 a win, 1/2 a draw with two players); Elo is the ladder's Plackett-Luce fit
(niwa/ladder/plackett_luce.py): maximum likelihood over each game's full finishing
order, ties by Davidson's rule, a seat effect per player count (printed under the
table, in Elo against seat 0), mean 1500, ± 95 %. --rating pairwise: the older
Bradley-Terry fit over the pairwise results (niwa/ladder/mle.py), no seat effect.

exit codes:
  0  the tournament ran
  1  it ran, but a bot that is not built-in went OUT in at least one game, or, with
     --fail-on any, failed a decision at all (each bot's failures by class, with
     the first detail, are printed under the standings)
  2  usage error (bad option, unknown bot or game, no sandbox, a resume that
     does not match its progress file)
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="bots in a round-robin, gauntlet, swiss or knockout bracket: standings "
        "with Elo ± 95%%, or the bracket",
        description="Plays a tournament of GAME between the given bots, several games at "
        "once, each in its own worker process, the bots sandboxed as in `niwa play`.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_common(p)
    p.add_argument("--bot", action="append", required=True, metavar="DIR_OR_BUILTIN",
                   help="a bot directory (with bot.toml) or builtin:NAME; once per entrant")
    p.add_argument("--format", choices=FORMATS, default="round-robin",
                   help="how bots are grouped (default round-robin; see below)")
    p.add_argument("--rounds", type=int, default=1,
                   help="rounds: each group's deals (round-robin, gauntlet) or swiss "
                   "rounds (default 1)")
    p.add_argument("--games", type=int,
                   help="knockout: games per tie, at most with --sprt (default 10; "
                   "rounded up to even)")
    p.add_argument("--sprt", nargs="+", metavar="NAME=VALUE",
                   help="knockout: end a tie once an SPRT of the better seed against the "
                   "other decides: elo0=0 elo1=5 alpha=0.05 beta=0.05 (defaults of any "
                   "left out), as in niwa match")
    p.add_argument("--seed-from", metavar="DB",
                   help="knockout: seed the bots by their rating on this ladder store's "
                   "leaderboard of GAME (a SQLite file or postgresql:// URL, only read); "
                   "default: the order of --bot")
    p.add_argument("--html", type=Path, metavar="FILE",
                   help="knockout: write the bracket as a self-contained web page to FILE "
                   "after each round (no script, no network)")
    p.add_argument("--rating", choices=RATINGS, default=PLACKETT_LUCE,
                   help="the Elo column's fit: plackett-luce over full finishing orders "
                   "with seat effects, as the ladder's (default), or pairwise "
                   "Bradley-Terry")
    keep = p.add_mutually_exclusive_group()
    keep.add_argument("--progress", type=Path, metavar="FILE",
                      help="append each finished game to FILE (JSON lines, fsynced), so "
                      "that --resume FILE can continue the tournament")
    keep.add_argument("--resume", type=Path, metavar="FILE",
                      help="continue the tournament of a --progress FILE with the same "
                      "arguments, without playing its finished games again")
    p.set_defaults(run=run)


def check_args(args: argparse.Namespace, info: engine.GameInfo) -> int:
    """The option checks; returns the seats per game."""
    if args.concurrency < 0:
        raise UsageError("--concurrency must be at least 1 (or 0 for one per core)")
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    knockout = args.format == "knockout"
    if not knockout and (args.games is not None or args.sprt is not None
                         or args.seed_from is not None or args.html is not None):
        raise UsageError(f"--games, --sprt, --seed-from and --html are for --format "
                         f"knockout; {args.format} plays --rounds")
    if knockout:
        if args.rating != PLACKETT_LUCE:
            raise UsageError("--rating is for the standings of round-robin, gauntlet and "
                             "swiss: a knockout's bracket has no Elo column")
        if args.rounds != 1:
            raise UsageError("--rounds is not for --format knockout: a tie plays --games")
        if args.players not in (None, 2) or info.min_players > 2:
            raise UsageError(f"a knockout tie is two bots head to head, so its games have "
                             f"2 players ({args.game}: {info.min_players} to "
                             f"{info.max_players}): leave out --players")
        if args.games is not None and args.games < 1:
            raise UsageError("--games must be at least 1")
        return 2
    players: int = args.players or max(2, info.min_players)
    return players


def header(args: argparse.Namespace, specs: list[str], players: int, first: MatchSpec,
           sprt: stats.Sprt | None, seeding: list[int] | None) -> dict[str, Any]:
    """What decides a tournament's games, normalised (``0.1s`` is ``100ms``): a resume
    must match it (``seed`` and ``seeding`` None: the file's)."""
    return {"game": args.game, "format": args.format, "bots": specs, "players": players,
            "rounds": args.rounds, "games": args.games,
            "sprt": None if sprt is None else asdict(sprt), "time": str(first.time_control),
            "options": dict(first.options), "sandbox": first.sandbox, "seed": args.seed,
            "seed_from": args.seed_from, "seeding": seeding}


def seeding(args: argparse.Namespace, ids: list[str], spec_of: dict[str, str],
            out: TextIO) -> list[int] | None:
    """A knockout's seed order (positions in ``ids``): from ``--seed-from``'s leaderboard,
    else as given; None on a resume with ``--seed-from`` (the file's, not today's)."""
    if args.format != "knockout":
        return None
    if args.seed_from is None:
        return list(range(len(ids)))
    if args.resume is not None:
        return None
    specs = parse_bots([spec_of[b] for b in ids])
    found = read_seeding(args.seed_from, args.game, specs)
    print(f"seeds from {args.seed_from}: " + ", ".join(
        f"{n} {printable(ids[i], NAME_SHOWN)} "
        + (f"({found.elo[i]:.0f})" if i in found.elo else "(not rated there)")
        for n, i in enumerate(found.order, 1)), file=out)
    return found.order


def run(args: argparse.Namespace) -> int:

    configure_cli_logging()
    try:
        info = engine.load(args.game).info
    except engine.UnknownGame as e:
        raise UsageError(str(e).strip("'\"")) from None
    players = check_args(args, info)
    try:
        sprt = stats.Sprt.parse(args.sprt) if args.sprt is not None else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    if len(args.bot) < max(players, 2):
        raise UsageError(f"a tournament of {players}-player games needs at least "
                         f"{max(players, 2)} --bot, not {len(args.bot)}")
    if not info.min_players <= players <= info.max_players:
        raise UsageError(f"{args.game} is played by {info.min_players} to {info.max_players} "
                         f"players, not {players}: change --players")
    if args.replays is not None:
        args.replays.mkdir(parents=True, exist_ok=True)
    who = entrants(args.bot)
    ids, spec_of = who.ids, who.spec
    first = check_seating(args, [spec_of[b] for b in ids[:players]])
    for bot in ids[players:]:  # every entrant checked (the game, its bot.toml)
        check_seating(args, [spec_of[bot], *[spec_of[b] for b in ids[:players - 1]]])
    keep = args.resume or args.progress
    if args.resume is None:  # a new tournament's file keeps the seed it drew
        args.seed = series_seed(args)
    out = sys.stdout if args.json != "-" else sys.stderr
    order = seeding(args, ids, spec_of, out)
    kept = None if keep is None else Progress(
        keep, header(args, [spec_of[b] for b in ids], players, first, sprt, order),
        resume=args.resume is not None)
    seed: int = args.seed if kept is None else kept.header["seed"]
    if kept is not None:
        order = kept.header["seeding"]
    shape = (f"{args.games or KNOCKOUT_GAMES} games a tie" if args.format == "knockout"
             else f"{args.rounds} rounds")
    print(f"{args.game}: {args.format}, {len(ids)} bots, {players} players, {shape}, "
          f"seed {seed}, time {first.time_control}, concurrency "
          f"{args.concurrency or cores()}{'' if first.sandbox else ' (NOT sandboxed)'}"
          + ("" if kept is None or not kept.done
             else f", {len(kept.done)} games already played ({keep})"),
          file=out)
    warn_isolation(first)
    sink = JsonLines(args.json)
    try:
        cls = Knockout if args.format == "knockout" else Tournament
        t = cls(args, ids, spec_of, players, seed, out, sink)
        t.names = who.name
        t.options, t.sandbox = dict(first.options), first.sandbox
        t.progress = kept
        if isinstance(t, Knockout):
            t.run([ids[i] for i in order or ()], sprt)
        else:
            groups_of(t, ids, players, seed)
            fitted = fit(t.records, args.rating)
            final = rows(t.standings, t.records, fitted)
            t.live.update([progress(len(t.records), len(t.records), t.started),
                           *table(final), *seat_lines(fitted.seats),
                           *t.standings.failure_lines()], final=True)
            sink.write({"type": "standings", "game": args.game, "format": args.format,
                        "seed": seed, "time": args.time, "players": players,
                        "rounds": args.rounds, "games": len(t.records), "rows": final,
                        "rating": args.rating, "seat_effects": seats_json(fitted.seats)})
    except KeyboardInterrupt:
        if kept is not None:  # the finished games are in the file
            print(f"to continue: the same command with --resume {keep} (in place of "
                  "any --progress)", file=sys.stderr)
        raise
    finally:
        sink.close()
        if kept is not None:
            kept.close()
    return 1 if t.dir_out else 0

