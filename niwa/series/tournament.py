"""A tournament played: its games run in a worker pool and counted as they finish
(standings, or a knockout's bracket), those of a progress file counted without being
played again. ``niwa tournament`` (:mod:`niwa.commands.tournament`) builds it."""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from niwa.cli import UsageError
from niwa.referee.pool import cores
from niwa.referee.text import printable
from niwa.series import ratings as ratings_
from niwa.series import schedule, stats
from niwa.series.bracket import Bracket, Tie, tie_seed
from niwa.series.games import GameJob, GameRecord, play_game, run_jobs
from niwa.series.progress import Progress
from niwa.series.report import NAME_SHOWN, JsonLines, Live, Standings, progress, short
from niwa.web.bracket_page import bracket_html


def rows(
    standings: Standings, records: Sequence[GameRecord], fitted: ratings_.Fitted | None = None
) -> list[dict[str, Any]]:
    """The standings, best first: points, then Elo (``fitted``: the games' ratings, by
    default the Plackett-Luce fit)."""
    ratings = (fitted or ratings_.fit(records)).ratings
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
        self.rating: str = args.rating
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
        fitted = ratings_.fit(self.records, self.rating)
        return [progress(len(self.records), planned, self.started),
                *table(rows(self.standings, self.records, fitted)),
                *ratings_.seat_lines(fitted.seats)]


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
            more = self.bracket.advance()
            self.page()
            if not more:
                break
        champion = self.bracket.champion
        self.live.update([progress(len(self.records), len(self.records), self.started),
                          *self.bracket.lines(),
                          f"champion: {printable(champion or '-', NAME_SHOWN)}",
                          *self.standings.failure_lines()], final=True)
        self.sink.write({**self.bracket.to_json(), "game": self.args.game,
                         "seed": self.seed, "time": self.args.time,
                         "games": len(self.records)})

    def page(self) -> None:
        """``--html FILE``: the bracket's page as it stands, replaced whole (a reader
        never sees half of it)."""
        if self.args.html is None:
            return
        title = f"{self.args.game} knockout, seed {self.seed}"
        temp = self.args.html.with_name(self.args.html.name + ".tmp")
        temp.write_text(bracket_html(self.bracket.to_json(), title), encoding="utf-8")
        os.replace(temp, self.args.html)

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
