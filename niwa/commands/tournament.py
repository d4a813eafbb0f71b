"""``niwa tournament GAME --bot ... --format round-robin|gauntlet|swiss``: bots in
groups, standings with points and the ladder's batch Elo ± 95 %."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.match import add_common, series_seed
from niwa.commands.play import warn_isolation
from niwa.ladder.mle import batch_elo
from niwa.referee.logs import configure_cli_logging
from niwa.referee.pool import cores
from niwa.referee.text import printable
from niwa.series import schedule
from niwa.series.games import GameJob, GameRecord, play_game, run_jobs
from niwa.series.report import NAME_SHOWN, JsonLines, Live, Standings, progress, short
from niwa.series.setup import check_seating, entrants

FORMATS = ("round-robin", "gauntlet", "swiss")

EPILOG = """\
formats:
  round-robin  every group of P different bots (every pairing with 2 players) plays
               --rounds rounds; a round plays one deal in every seat rotation
  gauntlet     the first --bot against each group of P-1 of the others, likewise
  swiss        --rounds rounds; each round groups bots with similar points who have
               met least, one deal per group in every seat rotation; bots left over
               sit the round out (the lowest ranked of those with fewest byes)

standings: points are each game's share of the other seats a bot placed ahead of
(1 a win, 1/2 a draw with two players); Elo is the ladder's batch fit (niwa/ladder/mle.py):
maximum-likelihood Bradley-Terry over the pairwise results, mean 1500, ± 95 %.

exit codes:
  0  the tournament ran
  1  it ran, but a bot that is not built-in went OUT in at least one game, or, with
     --fail-on any, failed a decision at all (each bot's failures by class, with
     the first detail, are printed under the standings)
  2  usage error (bad option, unknown bot or game, no sandbox)
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="bots in a round-robin, gauntlet or swiss: standings with Elo ± 95%%",
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

    def play(self, jobs: list[GameJob], planned: int) -> None:
        self.total += len(jobs)

        def on_done(record: GameRecord) -> bool:
            self.records.append(record)
            self.dir_out = self.dir_out or record.fails_run(self.args.fail_on)
            self.live.note(self.standings.add(record))
            self.sink.write(record.to_json())
            head = progress(len(self.records), planned, self.started)
            self.live.update([head, *table(rows(self.standings, self.records))])
            return True

        try:
            run_jobs(jobs, play_game, self.args.concurrency or cores(), on_done)
        except ValueError as e:
            raise UsageError(str(e)) from None


def run(args: argparse.Namespace) -> int:

    configure_cli_logging()
    if args.concurrency < 0:
        raise UsageError("--concurrency must be at least 1 (or 0 for one per core)")
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    try:
        info = engine.load(args.game).info
    except engine.UnknownGame as e:
        raise UsageError(str(e).strip("'\"")) from None
    players = args.players or max(2, info.min_players)
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
    seed = series_seed(args)
    out = sys.stdout if args.json != "-" else sys.stderr
    print(f"{args.game}: {args.format}, {len(ids)} bots, {players} players, {args.rounds} "
          f"rounds, seed {seed}, time {first.time_control}, concurrency "
          f"{args.concurrency or cores()}{'' if first.sandbox else ' (NOT sandboxed)'}",
          file=out)
    warn_isolation(first)
    sink = JsonLines(args.json)
    try:
        t = Tournament(args, ids, spec_of, players, seed, out, sink)
        t.names = who.name
        t.options, t.sandbox = dict(first.options), first.sandbox
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
        final = rows(t.standings, t.records)
        t.live.update([progress(len(t.records), len(t.records), t.started), *table(final),
                       *t.standings.failure_lines()], final=True)
        sink.write({"type": "standings", "game": args.game, "format": args.format,
                    "seed": seed, "time": args.time, "players": players,
                    "rounds": args.rounds, "games": len(t.records), "rows": final})
    finally:
        sink.close()
    return 1 if t.dir_out else 0
