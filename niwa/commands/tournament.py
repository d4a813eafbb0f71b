"""``niwa tournament GAME --bot ... --format round-robin|gauntlet|swiss|knockout``:
bots in groups, standings with points and the ladder's batch Elo ± 95 %, or a
single-elimination bracket; ``--progress``/``--resume`` keep and continue its games."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.match import add_common, series_seed
from niwa.commands.play import warn_isolation
from niwa.ladder.mle import batch_elo
from niwa.referee.logs import configure_cli_logging
from niwa.referee.pool import cores
from niwa.referee.text import printable
from niwa.series import schedule, stats
from niwa.series.bracket import Bracket, Tie, tie_seed
from niwa.series.games import GameJob, GameRecord, play_game, run_jobs
from niwa.series.progress import Progress
from niwa.series.report import NAME_SHOWN, JsonLines, Live, Standings, progress, short
from niwa.series.seeding import read_seeding
from niwa.series.setup import check_seating, entrants, parse_bots

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
(1 a win, 1/2 a draw with two players); Elo is the ladder's batch fit (niwa/ladder/mle.py):
maximum-likelihood Bradley-Terry over the pairwise results, mean 1500, ± 95 %.

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
    keep = p.add_mutually_exclusive_group()
    keep.add_argument("--progress", type=Path, metavar="FILE",
                      help="append each finished game to FILE (JSON lines, fsynced), so "
                      "that --resume FILE can continue the tournament")
    keep.add_argument("--resume", type=Path, metavar="FILE",
                      help="continue the tournament of a --progress FILE with the same "
                      "arguments, without playing its finished games again")
    p.set_defaults(run=run)


def rows(standings: Standings, records: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """The standings, best first: points, then Elo."""
    ratings = batch_elo([[(s.bot, s.place) for s in r.seats] for r in records])
    out = []
    for bot, line in standings.lines.items():
        rating = ratings.get(bot)
        out.append({"bot": bot, **line.to_json(),
                    "elo": rating.elo if rating else None,
                    "elo_ci95": rating.ci95 if rating else None})
    out.sort(key=lambda r: (-r["points"], -(r["elo"] or 0.0)))
    for rank, row in enumerate(out, 1):
        row["rank"] = rank
    return out


def table(standings_rows: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'rank':>4}  {'bot':<{NAME_SHOWN}} {'games':>6} {'points':>7} "
             f"{'Elo ± 95%':>14} {'outs':>5}"]
    for r in standings_rows:
        elo = "-" if r["elo"] is None else f"{r['elo']:.0f} ± {r['elo_ci95']:.0f}"
        lines.append(f"{r['rank']:>4}  {short(r['bot']):<{NAME_SHOWN}} "
                     f"{r['games']:>6} {r['points']:>7.1f} {elo:>14} {r['outs']:>5}")
    return lines


class Tournament:
    def __init__(self, args: argparse.Namespace, ids: list[str], spec_of: dict[str, str],
                 players: int, seed: int, out: TextIO, sink: JsonLines) -> None:
        self.args, self.ids, self.spec_of = args, ids, spec_of
        self.players, self.seed, self.out, self.sink = players, seed, out, sink
        self.standings = Standings(ids)
        self.records: list[GameRecord] = []
        self.live = Live(out)
        self.started = time.monotonic()
        self.total = 0
        self.dir_out = False
        self.options: dict[str, Any] = {}
        self.sandbox = True
        self.deals = 0
        self.names: dict[str, str] = {}  # each bot's display name, for replays
        self.progress: Progress | None = None
        self.seen: set[int] = set()  # the indexes of the games counted

    def jobs(self, groups: Sequence[tuple[str, ...]], round_: int) -> list[GameJob]:
        out: list[GameJob] = []
        for group in groups:
            game_seed = schedule.game_seed(self.seed, self.deals)
            self.deals += 1
            for seating in schedule.rotations(group):
                n = self.total + len(out)
                replay = (None if self.args.replays is None
                          else self.args.replays / f"{self.args.game}-{self.seed}-{n:05d}.jsonl")
                out.append(GameJob(
                    index=n, game=self.args.game,
                    bots=tuple(self.spec_of[b] for b in seating), ids=seating,
                    seed=game_seed, time_control=self.args.time, options=self.options,
                    sandbox=self.sandbox, replay=replay, round=round_,
                    labels=tuple(self.names.get(b, b) for b in seating),
                ))
        return out

    def play(self, jobs: Iterable[GameJob], planned: int, count: bool = True) -> None:
        """Play the jobs not in the progress file (those are counted as they were);
        ``count`` False: the caller adds the jobs to ``total`` (a lazy ``jobs``)."""
        if count:
            jobs = list(jobs)
            self.total += len(jobs)

        def on_done(record: GameRecord) -> bool:
            self.count(record, planned)
            if self.progress is not None:
                self.progress.add(self.line(record))
            return True

        def todo() -> Iterator[GameJob]:
            for job in jobs:
                if self.progress is not None and job.index in self.progress.done:
                    if job.index not in self.seen:
                        self.count(self.progress.done[job.index], planned)
                else:
                    yield job

        try:
            run_jobs(todo(), play_game, self.args.concurrency or cores(), on_done)
        except ValueError as e:
            raise UsageError(str(e)) from None

    def line(self, record: GameRecord) -> dict[str, Any]:
        """A game's JSON line (a knockout's names its tie)."""
        return {**record.to_json(), **self.tie_of(record)}

    def tie_of(self, record: GameRecord) -> dict[str, Any]:
        return {}

    def count(self, record: GameRecord, planned: int) -> None:
        self.seen.add(record.job.index)
        self.records.append(record)
        self.dir_out = self.dir_out or record.fails_run(self.args.fail_on)
        self.live.note(self.standings.add(record))
        self.sink.write(self.line(record))
        self.live.update(self.block(planned))

    def block(self, planned: int) -> list[str]:
        return [progress(len(self.records), planned, self.started),
                *table(rows(self.standings, self.records))]


def check_args(args: argparse.Namespace, info: engine.GameInfo) -> int:
    """The option checks; returns the seats per game."""
    if args.concurrency < 0:
        raise UsageError("--concurrency must be at least 1 (or 0 for one per core)")
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    knockout = args.format == "knockout"
    if not knockout and (args.games is not None or args.sprt is not None
                         or args.seed_from is not None):
        raise UsageError(f"--games, --sprt and --seed-from are for --format knockout; "
                         f"{args.format} plays --rounds")
    if knockout:
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


def header(args: argparse.Namespace, specs: list[str], players: int,
           options: dict[str, Any], sandbox: bool, seeding: list[int] | None) -> dict[str, Any]:
    """What decides a tournament's games: a resume must match it (``seed`` and
    ``seeding`` None: the file's)."""
    return {"game": args.game, "format": args.format, "bots": specs, "players": players,
            "rounds": args.rounds, "games": args.games, "sprt": args.sprt, "time": args.time,
            "options": options, "sandbox": sandbox, "seed": args.seed,
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
        keep, header(args, [spec_of[b] for b in ids], players, dict(first.options),
                     first.sandbox, order), resume=args.resume is not None)
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
            final = rows(t.standings, t.records)
            t.live.update([progress(len(t.records), len(t.records), t.started),
                           *table(final), *t.standings.failure_lines()], final=True)
            sink.write({"type": "standings", "game": args.game, "format": args.format,
                        "seed": seed, "time": args.time, "players": players,
                        "rounds": args.rounds, "games": len(t.records), "rows": final})
    except KeyboardInterrupt:
        if kept is not None:  # the finished games are in the file
            print(f"to continue: the same command with --resume {keep} in place of "
                  f"--progress", file=sys.stderr)
        raise
    finally:
        sink.close()
        if kept is not None:
            kept.close()
    return 1 if t.dir_out else 0


def groups_of(t: Tournament, ids: list[str], players: int, seed: int) -> None:
    """Play a round-robin, gauntlet or swiss."""
    args = t.args
    if args.format == "swiss":
        per_round = (len(ids) // players) * len(schedule.rotations(ids[:players]))
        rng = random.Random(seed)
        met: dict[frozenset[str], int] = {}
        byes: dict[str, int] = {}
        for r in range(args.rounds):
            pts = {b: line.points for b, line in t.standings.lines.items()}
            groups, bye = schedule.swiss_groups(ids, players, pts, met, rng, byes)
            for b in bye:
                byes[b] = byes.get(b, 0) + 1
            for group in groups:
                for i, a in enumerate(group):
                    for b in group[i + 1:]:
                        met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
            if bye:
                t.live.note([f"round {r + 1}: sits out: "
                             + ", ".join(printable(b, NAME_SHOWN) for b in bye)])
            t.play(t.jobs(groups, r), per_round * args.rounds)
    else:
        groups = (schedule.round_robin_groups(ids, players) if args.format == "round-robin"
                  else schedule.gauntlet_groups(ids, players))
        jobs = [job for r in range(args.rounds) for job in t.jobs(groups, r)]
        t.play(jobs, len(jobs))


KNOCKOUT_GAMES = 10


class Knockout(Tournament):
    """The bracket played round by round; in a round every tie's games run at once,
    a tie's next deal issued only while it is undecided."""

    bracket: Bracket

    def run(self, seeded: list[str], sprt: stats.Sprt | None) -> None:
        """Play the bracket of ``seeded`` (the best seed first)."""
        games = self.args.games or KNOCKOUT_GAMES
        self.per_tie = games + games % 2
        self.bracket = Bracket(seeded, sprt)
        slots = self.bracket.slots
        planned = self.per_tie * (len(seeded) - 1)  # n bots: n - 1 ties are played
        self.first_tie = [sum(slots >> (j + 1) for j in range(r))
                          for r in range(self.bracket.total_rounds)]
        while True:
            ties = self.bracket.rounds[-1]
            if self.progress is not None:  # in the order they finished, as they counted
                first = self.first_tie[ties[0].round - 1] * self.per_tie
                for index, record in self.progress.done.items():
                    if first <= index < first + len(ties) * self.per_tie:
                        self.count(record, planned)
            self.play(self.round_jobs(ties), planned, count=False)
            for tie in ties:
                tie.settle(cap=sprt is not None)
            if not self.bracket.advance():
                break
        champion = self.bracket.champion
        self.live.update([progress(len(self.records), len(self.records), self.started),
                          *self.bracket.lines(),
                          f"champion: {printable(champion or '-', NAME_SHOWN)}",
                          *self.standings.failure_lines()], final=True)
        self.sink.write({**self.bracket.to_json(), "game": self.args.game,
                         "seed": self.seed, "time": self.args.time,
                         "games": len(self.records)})

    def ordinal(self, tie: Tie) -> int:
        """The tie's number over the whole bracket: its games' indexes start at
        ``ordinal * per_tie``."""
        return self.first_tie[tie.round - 1] + tie.number

    def round_jobs(self, ties: list[Tie]) -> Iterator[GameJob]:
        """Each undecided tie's next deal (both seatings) in turn, until every tie has
        its games or a decision."""
        issued = dict.fromkeys(range(len(ties)), 0)
        while True:
            more = False
            for n, tie in enumerate(ties):
                if tie.winner is not None or tie.b is None or issued[n] >= self.per_tie:
                    continue
                more = True
                base = self.ordinal(tie) * self.per_tie + issued[n]
                deal = base // 2
                for k, seating in enumerate(((tie.a, tie.b), (tie.b, tie.a))):
                    replay = (None if self.args.replays is None else self.args.replays
                              / f"{self.args.game}-{self.seed}-{base + k:05d}.jsonl")
                    self.total += 1
                    yield GameJob(
                        index=base + k, game=self.args.game,
                        bots=tuple(self.spec_of[b] for b in seating), ids=seating,
                        seed=tie_seed(self.seed, tie.round, tie.number, deal),
                        time_control=self.args.time, options=self.options,
                        sandbox=self.sandbox, replay=replay, round=deal,
                        labels=tuple(self.names.get(b, b) for b in seating))
                issued[n] += 2
            if not more:
                return

    def tie_at(self, index: int) -> Tie:
        ordinal = index // self.per_tie
        for r, ties in enumerate(self.bracket.rounds):
            if self.first_tie[r] <= ordinal < self.first_tie[r] + len(ties):
                return ties[ordinal - self.first_tie[r]]
        raise KeyError(index)

    def tie_of(self, record: GameRecord) -> dict[str, Any]:
        tie = self.tie_at(record.job.index)
        return {"knockout_round": tie.round, "tie": tie.number}

    def count(self, record: GameRecord, planned: int) -> None:
        self.tie_at(record.job.index).add(record)
        super().count(record, planned)

    def block(self, planned: int) -> list[str]:
        return [progress(len(self.records), planned, self.started), *self.bracket.lines()]
