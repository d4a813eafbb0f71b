"""``niwa bench strength-replays DIR --pair A:B``: score the replays that runs of
``niwa bench strength --replays DIR`` kept, pooled across runs, player counts and games.

A head-to-head too long for one run is played in batches (say ten matches per game
in turn, stopped when time runs out); this scores every finished match between A and
B under the folders, exactly as ``bench strength`` scores one run: per match A's share
of the (A seat, B seat) pairs it placed ahead in, ties half; per deal (the match seed)
the mean; the 95 % interval a Student t over the deal means, widened to at least the
Wilson interval of the match count. One row per game and player count, and one pooled
over all of them (its deals are each row's deals, kept apart). Replays of other bots,
and matches that did not finish, are counted and left out.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json
from niwa.commands.bench_strength import match_score, side_spec, split_pair
from niwa.ladder.elo import fmt_elo
from niwa.referee.failures import MoveStatus
from niwa.referee.replay import ReplayError, read
from niwa.series.report import json_number
from niwa.series.stats import block_interval, elo

__all__ = ["Pool", "pool_replays", "run"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "strength-replays",
        help="score the replays kept by bench strength runs, pooled",
        description="Scores every finished match between the two bots of --pair in the "
        "replays under the folders (as `niwa bench strength --replays DIR` keeps them), "
        "per game and player count and pooled, with 95 %% intervals, as bench strength "
        "scores one run.",
    )
    p.add_argument("folders", nargs="+", type=Path, help="folders searched for *.jsonl")
    p.add_argument("--pair", required=True, metavar="A:B",
                   help="the two bots, as given to bench strength --pair")  # fmt: skip
    add_json_option(p)
    p.set_defaults(run=run)


@dataclass
class Pool:
    """What the replays of one game and player count gave (or all of them, pooled)."""

    matches: int = 0
    by_deal: dict[tuple[str, int, int], list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)  # "a"/"b" -> failed moves

    def add(self, deal: tuple[str, int, int], score: float, failed: dict[str, int]) -> None:
        self.matches += 1
        self.by_deal.setdefault(deal, []).append(score)
        for side, n in failed.items():
            self.failures[side] = self.failures.get(side, 0) + n

    def score(self) -> tuple[float, float, float]:
        means = [statistics.fmean(v) for v in self.by_deal.values()]
        return block_interval(means, self.matches)


@dataclass
class Pooled:
    rows: dict[tuple[str, int], Pool]
    total: Pool
    unfinished: int = 0
    unreadable: int = 0
    others: int = 0  # replays of other bots


def pool_replays(folders: list[Path], a: str, b: str) -> Pooled:
    """Every finished A-against-B match in the replays under ``folders``."""
    names = {side_spec(a): "a", side_spec(b): "b", a: "a", b: "b"}
    pooled = Pooled({}, Pool())
    paths = sorted({p.resolve() for f in folders for p in f.rglob("*.jsonl")})
    for path in paths:
        try:
            replay = read(path)
        except ReplayError:
            pooled.unreadable += 1
            continue
        head = replay.header
        seating = tuple(names.get(s.bot, "") for s in head.seats)
        if "" in seating or set(seating) != {"a", "b"}:
            pooled.others += 1
            continue
        if replay.result is None:
            pooled.unfinished += 1
            continue
        failed: dict[str, int] = {}
        for step in replay.steps:
            for move in step.moves:
                if move.seat >= 0 and move.status != MoveStatus.OK:
                    side = seating[move.seat]
                    failed[side] = failed.get(side, 0) + 1
        score = match_score(replay.result.places, seating)
        deal = (head.game, head.players, head.seed)
        pooled.rows.setdefault((head.game, head.players), Pool()).add(deal, score, failed)
        pooled.total.add(deal, score, failed)
    return pooled


def run(args: argparse.Namespace) -> int:
    a, b = split_pair(args.pair)
    for folder in args.folders:
        if not folder.is_dir():
            raise UsageError(f"no folder {folder}")
    pooled = pool_replays(args.folders, a, b)
    if not pooled.total.matches:
        raise UsageError(
            f"no finished match between {a} and {b} under {', '.join(map(str, args.folders))} "
            f"({pooled.others} replays of other bots, {pooled.unfinished} unfinished, "
            f"{pooled.unreadable} unreadable)"
        )
    out = text_out(args)
    print(f"A = {a}, B = {b}; {pooled.others} replays of other bots, {pooled.unfinished} "
          f"unfinished and {pooled.unreadable} unreadable left out", file=out)
    print(f"{'game':<10} {'players':>7} {'matches':>7} {'deals':>5}  {'A score [95% CI]':<22} "
          f"{'Elo A-B [95% CI]':<22} A/B failed moves", file=out)
    rows = []
    labelled = [(game, str(players), pool) for (game, players), pool in sorted(pooled.rows.items())]
    for game, players, pool in [*labelled, ("pooled", "", pooled.total)]:
        mean, low, high = pool.score()
        rating = f"{fmt_elo(elo(mean), 0)} [{fmt_elo(elo(low), 0)}, {fmt_elo(elo(high), 0)}]"
        fails = f"{pool.failures.get('a', 0)}/{pool.failures.get('b', 0)}"
        print(f"{game:<10} {players:>7} {pool.matches:>7} {len(pool.by_deal):>5}  "
              f"{f'{mean:.3f} [{low:.3f}, {high:.3f}]':<22} {rating:<22} {fails}", file=out)
        rows.append({
            "game": game, "players": int(players) if players else None,
            "matches": pool.matches, "deals": len(pool.by_deal), "score": mean,
            "score_low": low, "score_high": high, "elo": json_number(elo(mean)),
            "elo_low": json_number(elo(low)), "elo_high": json_number(elo(high)),
            "failed_moves": {"a": pool.failures.get("a", 0), "b": pool.failures.get("b", 0)},
        })  # fmt: skip
    write_json(args, {
        "benchmark": "strength-replays", "a": a, "b": b, "rows": rows,
        "left_out": {"others": pooled.others, "unfinished": pooled.unfinished,
                     "unreadable": pooled.unreadable},
    })  # fmt: skip
    return 0
