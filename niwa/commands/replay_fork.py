"""``niwa replay fork``: play on from step N of recorded matches, one seat's bot
replaced, and compare the forks with the originals (docs/series.md, "Forks")."""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niwa import engine
from niwa.bots.manifest import ManifestError
from niwa.cli import UsageError
from niwa.referee.failures import SeatStatus
from niwa.referee.fork import ForkRefused, ForkStart, chance_kept, fork_start
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec, MatchOutcome, MatchSpec, TimeControl, play_match
from niwa.referee.replay import Replay, ReplayError
from niwa.referee.replay import read as read_replay
from niwa.referee.sandbox import SandboxUnavailable
from niwa.referee.seeds import derive_seed
from niwa.referee.text import printable
from niwa.series.names import named, shown
from niwa.series.paired import Paired, compare, share
from niwa.series.stats import Sprt

NAME_SHOWN = 40

FORK_EPILOG = """\
exit status:
  0  every fork was played (with a seat named, the comparison is printed)
  1  the replacing bot (a bot directory) went out of a forked game: crashed, or
     failed --max-failures decisions of the replay
  2  a refusal: the file cannot be read, no step N, an unknown seat, a seat with no
     bot that runs here, a bad option; with --from, no replay in DIR could be forked
     (each replay refused is listed, and the others are played)
"""


def register_fork(actions: Any) -> None:
    f = actions.add_parser(
        "fork",
        help="play on from step N of a replay (or of every replay in a folder) with one "
        "seat's bot replaced, and compare with what happened",
        description="Plays a recorded match again from the state after its first N steps,\n"
        "through the referee (bots sandboxed as in niwa play): the steps before N as\n"
        "recorded, the rest by the bots. Chance drawn in the original stays as recorded\n"
        "where it is still legal; the rest is drawn from a seed, recorded in each forked\n"
        "replay's header with the original's SHA-256 and N (docs/series.md, \"Forks\").",
        epilog=FORK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    f.add_argument("file", nargs="?", help="a replay file (JSON Lines); or --from DIR")
    f.add_argument("--from", dest="folder", type=Path, metavar="DIR",
                   help="fork every *.jsonl replay in DIR and report the paired comparison "
                   "of the seat's original and forked results (needs --seat or --as)")
    f.add_argument("--at", type=int, required=True, metavar="N",
                   help="fork after the first N steps (0: from the first step)")
    who = f.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, metavar="K", help="the seat to replace and compare")
    who.add_argument("--as", dest="as_name", metavar="NAME",
                     help="the seat the bot NAME sat in, in each replay: its label as the "
                     "header gives it (builtin:random, gardener@0.2.0) or its name")
    f.add_argument("--bot", metavar="DIR_OR_BUILTIN",
                   help="the bot that takes the seat (default: the one that sat there)")
    f.add_argument("--bot-for", action="append", default=[], metavar="SEAT=DIR_OR_BUILTIN",
                   help="the bot for another seat (a number, or the name --as takes); "
                   "repeatable. Needed for every seat whose recorded bot is not a builtin:")
    f.add_argument("--games", type=int, default=1, metavar="M",
                   help="forked games per replay (default 1); each has its own seed")
    f.add_argument("--seed", type=int,
                   help="the seed the forks' seeds derive from (default: random, printed)")
    f.add_argument("--time", help="per-decision time + bank (default: the replay's)")
    f.add_argument("--out", type=Path, default=Path("forks"), metavar="DIR",
                   help="where the forked replays go (default ./forks)")
    f.add_argument("--sprt", nargs="+", default=[], metavar="NAME=VALUE",
                   help="the SPRT's elo0, elo1, alpha, beta (defaults 0, 5, 0.05, 0.05); it "
                   "takes every NAME=VALUE word that follows: put FILE before it")
    f.add_argument("--no-sandbox", action="store_true",
                   help="run bots as plain processes (trusted bots only)")
    f.add_argument("--json", action="store_true",
                   help="JSON lines on stdout (a 'fork' line per replay, 'refused' lines, "
                   "one 'summary'); the text goes to stderr")
    f.set_defaults(run=run_fork)


@dataclass(frozen=True)
class Plan:
    """One replay's fork, ready to play."""

    path: Path
    replay: Replay
    sha256: str
    start: ForkStart
    seat: int | None
    bots: list[BotSpec]
    original: float | None  # the seat's share of the recorded match


def run_fork(args: argparse.Namespace) -> int:
    configure_cli_logging()
    if (args.file is None) == (args.folder is None):
        raise UsageError("give one replay FILE or --from DIR")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.bot is not None and args.seat is None and args.as_name is None:
        raise UsageError("--bot replaces one seat: say which with --seat K or --as NAME")
    if args.folder is not None and args.seat is None and args.as_name is None:
        raise UsageError("--from compares one seat across the replays: give --seat K or --as NAME")
    try:
        sprt = Sprt.parse(args.sprt)
        replacement = None if args.bot is None else BotSpec.parse(args.bot)
        extra = _bot_for(args.bot_for)
        time_control = None if args.time is None else TimeControl.parse(args.time)
    except (ValueError, ManifestError) as e:
        raise UsageError(str(e)) from None
    paths = [Path(args.file)] if args.folder is None else _replays_in(args.folder)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    out = sys.stderr if args.json else sys.stdout
    plans: list[Plan] = []
    for path in paths:
        try:
            plans.append(_plan(path, args, replacement, extra))
        except (ReplayError, ForkRefused, engine.UnknownGame) as e:
            if args.folder is None:
                raise UsageError(str(e).strip("\"'")) from None
            print(f"refused {printable(str(path))}: {printable(str(e))}", file=out)
            _emit(args, {"kind": "refused", "replay": str(path), "reason": str(e)})
    if not plans:
        raise UsageError(f"no replay in {printable(str(args.folder))} could be forked")
    for key in extra:  # a misspelt --bot-for would otherwise leave its seat as recorded
        if not any(key in _names(p.replay, i) for p in plans for i in range(len(p.bots))):
            raise UsageError(f"--bot-for {printable(key)}=...: no seat of the replays is "
                             f"{printable(key)}: give a seat number or a bot's label")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot make {printable(str(args.out))}: {e.strerror or e}") from None
    print(f"forking {len(plans)} replay(s) at step {args.at}, {args.games} game(s) each, "
          f"seed {seed}", file=out, flush=True)
    differences: list[float] = []
    others = 1
    went_out = False
    for number, plan in enumerate(plans, 1):
        games = _play(plan, args, seed, time_control)
        line = _record(plan, games, args)
        went_out |= replacement is not None and not replacement.is_builtin and any(
            o.seats[plan.seat].status == SeatStatus.OUT for o, _, _ in games
            if plan.seat is not None
        )
        if plan.seat is not None and plan.original is not None:
            differences.append(line["difference"])
            others = math.lcm(others, plan.replay.header.players - 1)
        print(f"[{number}/{len(plans)}] {_text(plan, line)}", file=out, flush=True)
        _emit(args, line)
    if differences:
        paired = compare(differences, args.games, others, sprt)
        print(_summary_text(paired, sprt), file=out)
        _emit(args, _summary(paired, sprt, seed, args.games, len(paths) - len(plans)))
    return 1 if went_out else 0


def _replays_in(folder: Path) -> list[Path]:
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError as e:
        raise UsageError(f"cannot read --from {printable(str(folder))}: "
                         f"{e.strerror or e}") from None
    if not paths:
        raise UsageError(f"no *.jsonl replay in {printable(str(folder))}")
    return paths


def _bot_for(pairs: list[str]) -> dict[str, BotSpec]:
    bots: dict[str, BotSpec] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key or not text:
            raise ValueError(f"--bot-for {pair!r}: write SEAT=DIR or SEAT=builtin:NAME")
        bots[key] = BotSpec.parse(text)
    return bots


def _names(replay: Replay, seat: int) -> set[str]:
    """What ``--as`` and ``--bot-for`` may call a seat's bot."""
    info = replay.header.seats[seat]
    return {str(seat), info.bot, info.name, f"{info.name}@{info.version}"}


def _plan(
    path: Path, args: argparse.Namespace, replacement: BotSpec | None,
    extra: dict[str, BotSpec],
) -> Plan:
    replay = read_replay(path)
    replay.game()  # the game installed at the replay's version, or a ReplayError
    h = replay.header
    if h.players < 2:
        raise ForkRefused("a one-seat match has nothing to compare")
    seat = _seat(replay, args)
    with path.open("rb") as f:
        sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    start, _ = fork_start(replay, args.at, sha256)
    bots = []
    for i, info in enumerate(h.seats):
        given = next((extra[k] for k in _names(replay, i) if k in extra), None)
        if i == seat and replacement is not None:
            bots.append(replacement)
        elif given is not None:
            bots.append(given)
        elif info.bot.startswith("builtin:"):
            try:
                bots.append(BotSpec.parse(info.bot))
            except ValueError as e:
                raise ForkRefused(f"seat {i}'s {info.bot} does not run here ({e}): give "
                                  f"--bot-for {i}=DIR_OR_BUILTIN") from None
        else:
            raise ForkRefused(
                f"seat {i} ({shown(info.bot, NAME_SHOWN)}) needs a bot that runs here: "
                f"give --bot-for {i}=DIR (its bot directory) or --bot-for {i}=builtin:NAME"
            )
    original = None
    if seat is not None:
        if replay.result is None:
            raise ForkRefused("no result line (the match was interrupted): nothing to "
                              "compare the fork with")
        original = share(replay.result.places, seat)
    return Plan(path, replay, sha256, start, seat, named(bots), original)


def _seat(replay: Replay, args: argparse.Namespace) -> int | None:
    players = replay.header.players
    if args.seat is not None:
        if not 0 <= args.seat < players:
            raise ForkRefused(f"no seat {args.seat}: the replay has seats 0 to {players - 1}")
        return int(args.seat)
    if args.as_name is None:
        return None
    seats = [i for i in range(players) if args.as_name in _names(replay, i)]
    if not seats:
        sat = ", ".join(shown(s.bot, NAME_SHOWN) for s in replay.header.seats)
        raise ForkRefused(f"no seat of this replay is {printable(args.as_name)} (its seats: "
                          f"{sat}): give --seat K")
    if len(seats) > 1:
        raise ForkRefused(f"{printable(args.as_name)} sat in seats "
                          f"{', '.join(map(str, seats))}: give --seat K")
    return seats[0]


def _play(
    plan: Plan, args: argparse.Namespace, seed: int, time_control: TimeControl | None
) -> list[tuple[MatchOutcome, Path, int]]:
    """Play the replay's forks: each game's outcome, replay file and seed."""
    h = plan.replay.header
    tc = time_control or TimeControl(h.time_control["per_decision_ms"],
                                     h.time_control["bank_ms"])
    games = []
    for game in range(args.games):
        game_seed = derive_seed(seed, "fork", plan.sha256, game)
        target = args.out / f"{plan.path.stem}-at{args.at}-{game + 1}.jsonl"
        spec = MatchSpec(
            game=h.game, bots=plan.bots, options=h.options, seed=game_seed,
            time_control=tc, sandbox=not args.no_sandbox, replay_path=target,
            max_failures=h.max_failures, fork=plan.start,
        )
        try:
            games.append((play_match(spec), target, game_seed))
        except (ValueError, SandboxUnavailable) as e:
            raise UsageError(str(e)) from None
    return games


def _record(
    plan: Plan, games: list[tuple[MatchOutcome, Path, int]], args: argparse.Namespace
) -> dict[str, Any]:
    """The replay's JSON line (stable fields: docs/series.md, "Forks")."""
    outcomes = [o for o, _, _ in games]
    files = [p for _, p, _ in games]
    seeds = [s for _, _, s in games]
    kept = drawn = 0
    for path in files:
        k, d = chance_kept(read_replay(path), plan.start)
        kept, drawn = kept + k, drawn + d
    line: dict[str, Any] = {
        "kind": "fork",
        "replay": str(plan.path),
        "sha256": plan.sha256,
        "at": args.at,
        "seat": plan.seat,
        "bots": [b.label or str(b) for b in plan.bots],
        "forked_replays": [str(p) for p in files],
        "seeds": seeds,
        "places": [list(o.result.places) for o in outcomes],
        "chance_kept": kept,
        "chance_drawn": drawn,
    }
    if plan.seat is not None and plan.original is not None:
        forked = [share(o.result.places, plan.seat) for o in outcomes]
        line["original"] = plan.original
        line["forked"] = forked
        line["difference"] = sum(forked) / len(forked) - plan.original
    return line


def _text(plan: Plan, line: dict[str, Any]) -> str:
    name = printable(str(plan.path))
    chance = f"chance: {line['chance_kept']} recorded, {line['chance_drawn']} drawn"
    if plan.seat is None:
        return f"{name}: places {line['places']}; {chance}"
    bot = shown(line["bots"][plan.seat], NAME_SHOWN)
    forked = ", ".join(f"{x:g}" for x in line["forked"])
    return (f"{name}: seat {plan.seat} original {plan.original:g}, forked with {bot} "
            f"{forked}: {line['difference']:+.3f}; {chance}")


def _verdict(paired: Paired) -> str:
    """As ``niwa match`` words it: the folder ran out before the test decided."""
    return "inconclusive" if paired.verdict == "continue" else paired.verdict


def _summary_text(paired: Paired, sprt: Sprt) -> str:
    interval = ("no interval from one replay" if paired.low is None or paired.high is None
                else f"95 % interval [{paired.low:+.3f}, {paired.high:+.3f}]")
    return (f"paired over {paired.n} replay(s): mean difference (fork - original) "
            f"{paired.mean:+.3f}, {interval}; SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} "
            f"alpha={sprt.alpha:g} beta={sprt.beta:g}: LLR {paired.llr:.3f} "
            f"[{sprt.lower:.2f}, {sprt.upper:.2f}], {_verdict(paired)}")


def _summary(paired: Paired, sprt: Sprt, seed: int, games: int, refused: int) -> dict[str, Any]:
    return {
        "kind": "summary",
        "replays": paired.n,
        "refused": refused,
        "games_per_replay": games,
        "seed": seed,
        "mean_difference": paired.mean,
        "low": paired.low,
        "high": paired.high,
        "sprt": {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                 "beta": sprt.beta, "llr": paired.llr, "verdict": _verdict(paired)},
    }


def _emit(args: argparse.Namespace, line: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(line, sort_keys=True), flush=True)
