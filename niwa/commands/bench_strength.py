"""``niwa bench strength GAME``: how the built-in bots fare against each other.

Every match runs through the referee with real bot processes (sandboxed unless
``--no-sandbox``), exactly as on the ladder. A pairing ``A:B`` plays A against B: with
two players one seat each, with more players the seats are split as evenly as possible
(two of each with four). Each deal (seed) is played once in every distinct seating of the
bots, so neither bot profits from the turn order or from a lucky deal.

A match scores, for A, the share of (A seat, B seat) pairs where A placed better, ties
counting half. The table gives A's mean score with a 95 % interval (Student t on the
per-deal means, the deals being independent and the seatings of one deal not, widened to
at least the Wilson interval of the match count so a clean sweep still gets an honest
interval), and the Elo difference the score implies, its interval mapped through the same
formula. It also
counts, from the replays, every decision of a bot that timed out or was illegal.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

from niwa import engine
from niwa.bots import builtin
from niwa.bots.manifest import MANIFEST
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json
from niwa.ladder.elo import fmt_elo
from niwa.referee.pool import cores
from niwa.series.games import GameJob, play_game, run_jobs
from niwa.series.headtohead import a_score
from niwa.series.report import json_number
from niwa.series.stats import block_interval, elo

__all__ = ["match_score", "run", "seatings", "side_spec", "split_pair"]

DEFAULT_PAIRINGS = ("greedy:random", "mcts:greedy")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "strength",
        help="built-in bots against each other: win rates and Elo with 95%% intervals",
        description="Plays built-in bots against each other through the referee, with real "
        "(sandboxed) bot processes, over seat-rotated seeds, and prints score rates and "
        "Elo differences with 95 % intervals, plus any timeouts or illegal moves.",
    )
    p.add_argument("game", help="a registered game")
    p.add_argument(
        "--pair",
        action="append",
        metavar="A:B",
        help="bots to compare, e.g. greedy:random or 'mcts?seconds=0.05:greedy'; a side "
        "may also be a bot directory (holding a bot.toml), e.g. another checkout's search "
        f"served as a bot (repeatable; default {' and '.join(DEFAULT_PAIRINGS)})",
    )
    p.add_argument("--players", type=int, action="append", help="player count (repeatable; "
                   "default 2, and 4 where the game allows)")
    p.add_argument("--matches", type=int, default=100,
                   help="matches per pairing and player count, at least (default 100)")
    p.add_argument("--time", default="100ms+5s", help="time control (default 100ms+5s)")
    p.add_argument("--jobs", type=int, default=0, help="matches at once (default: cores)")
    p.add_argument("--seed", type=int, default=0, help="first deal's seed (default 0)")
    p.add_argument("--replays", type=Path, help="keep the replays in this directory")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run bot processes without bubblewrap (trusted bots only)")
    add_json_option(p)
    p.set_defaults(run=run)


@dataclass(frozen=True)
class Job:
    """One match of a pairing: which bot sits where, on which deal."""

    game: str
    players: int
    a: str
    b: str
    seating: tuple[str, ...]  # "a" or "b" per seat
    seed: int
    time_control: str
    sandbox: bool
    replay: Path


@dataclass
class Played:
    """What one match gave: A's score, and failures per bot read from the replay."""

    job: Job
    score: float
    failures: dict[str, dict[str, int]] = field(default_factory=dict)
    decisions: int = 0
    wall_s: float = 0.0


def seatings(players: int) -> list[tuple[str, ...]]:
    """Every distinct seating of A and B, split as evenly as possible (A gets the odd
    seat out in half of them: the list then also holds B's mirror)."""
    half = players // 2
    base = ["a"] * (players - half) + ["b"] * half
    out = sorted(set(permutations(base)))
    if players % 2:
        mirror = ["b"] * (players - half) + ["a"] * half
        out += sorted(set(permutations(mirror)))
    return out


def match_score(places: Sequence[int], seating: Sequence[str]) -> float:
    """A's share of the (A seat, B seat) pairs where A placed better; ties count half."""
    return a_score(places, seating, "a", "b")


def play(job: Job) -> Played:
    """Run one match in this (worker) process: the series' worker, scored for A."""
    # The names were checked by split_pair (niwa.bots.builtin.create, options included).
    bots = tuple(side_spec(job.a if who == "a" else job.b) for who in job.seating)
    record = play_game(GameJob(0, job.game, bots, job.seating, job.seed, job.time_control,
                               sandbox=job.sandbox, replay=job.replay))
    played = Played(job, match_score(record.places(), job.seating),
                    decisions=record.decisions, wall_s=record.wall_s)
    for seat in record.seats:
        _add_failures(played.failures, job.a if seat.bot == "a" else job.b, seat.failures)
    return played


def _add_failures(into: dict[str, dict[str, int]], bot: str, counts: dict[str, int]) -> None:
    for status, n in counts.items():
        per_bot = into.setdefault(bot, {})  # only bots that failed are listed
        per_bot[status] = per_bot.get(status, 0) + n


def jobs_for(args: argparse.Namespace, a: str, b: str, players: int, out: Path) -> Iterator[Job]:
    seats = seatings(players)
    deals = math.ceil(args.matches / len(seats))
    for d in range(deals):
        for k, seating in enumerate(seats):
            name = f"{args.game}-{players}p-{_slug(a)}-vs-{_slug(b)}-{d:03d}-{k}.jsonl"
            yield Job(args.game, players, a, b, seating, args.seed + d, args.time,
                      not args.no_sandbox, out / name)


def _slug(bot: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in bot)


def _is_dir_bot(bot: str) -> bool:
    return (Path(bot) / MANIFEST).is_file()


def side_spec(bot: str) -> str:
    """The referee's spec of a side: a bot directory as it is, a built-in by name."""
    return str(Path(bot).resolve()) if _is_dir_bot(bot) else f"builtin:{bot}"


def split_pair(text: str) -> tuple[str, str]:

    # A bot name may carry options after "?" (``mcts?seconds=0.05``); split on the
    # first ":" outside them.
    a, sep, b = text.partition(":")
    if not sep or not a or not b:
        raise UsageError(
            f"bad pairing {text!r}: write two built-in bots (or bot directories) as A:B, "
            "e.g. greedy:random"
        )
    for bot in (a, b):
        if _is_dir_bot(bot):
            continue
        try:
            builtin.create(bot)
        except (LookupError, ValueError) as e:
            raise UsageError(str(e)) from None
    return a, b


def run(args: argparse.Namespace) -> int:
    names = engine.games()
    if args.game not in names:
        raise UsageError(f"unknown game {args.game!r}; registered games: {', '.join(names)}")
    info = engine.load(args.game).info
    counts = args.players or [n for n in (2, 4) if info.min_players <= n <= info.max_players]
    for n in counts:
        if not info.min_players <= n <= info.max_players or n < 2:
            raise UsageError(
                f"{args.game} is played by {info.min_players} to {info.max_players} players, "
                f"and a pairing needs at least 2: not {n}"
            )
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    pairs = [split_pair(p) for p in (args.pair or DEFAULT_PAIRINGS)]
    jobs_n = args.jobs or cores()
    with tempfile.TemporaryDirectory(prefix="niwa-strength-") as tmp:
        out = args.replays or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        rows = []
        for players in counts:
            for a, b in pairs:
                jobs = list(jobs_for(args, a, b, players, out))
                rows.append(_run_pairing(jobs, jobs_n, f"{a} vs {b}, {players} players"))
    _print_table(args, rows)
    write_json(args, {
        "benchmark": "strength", "game": args.game, "time": args.time,
        "sandboxed": not args.no_sandbox, "seed": str(args.seed),
        "rows": [{
            "players": r["players"], "a": r["a"], "b": r["b"], "matches": r["matches"],
            "deals": r["deals"], "score": r["score"][0], "score_low": r["score"][1],
            "score_high": r["score"][2], "elo": json_number(elo(r["score"][0])),
            "elo_low": json_number(elo(r["score"][1])), "elo_high": json_number(elo(r["score"][2])),
            "failures": r["failures"], "decisions": r["decisions"], "wall_s": r["wall_s"],
        } for r in rows],
    })
    failed = sum(n for r in rows for per in r["failures"].values() for n in per.values())
    return 1 if failed else 0


def _run_pairing(jobs: list[Job], workers: int, label: str) -> dict[str, Any]:
    started = time.perf_counter()
    results: list[Played] = []

    def on_done(played: Played) -> bool:
        results.append(played)
        mean = statistics.fmean(r.score for r in results)
        print(f"\r{label}: {len(results)}/{len(jobs)} matches, score so far {mean:.2f}",
              end="", file=sys.stderr, flush=True)
        return True

    run_jobs(jobs, play, workers, on_done)
    print(file=sys.stderr)
    by_deal: dict[int, list[float]] = {}
    failures: dict[str, dict[str, int]] = {}
    for r in results:
        by_deal.setdefault(r.job.seed, []).append(r.score)
        for bot, per in r.failures.items():
            _add_failures(failures, bot, per)
    mean, low, high = block_interval([statistics.fmean(v) for v in by_deal.values()], len(results))
    first = jobs[0]
    return {
        "players": first.players,
        "a": first.a,
        "b": first.b,
        "matches": len(results),
        "deals": len(by_deal),
        "score": (mean, low, high),
        "failures": failures,
        "decisions": sum(r.decisions for r in results),
        "wall_s": time.perf_counter() - started,
    }


def _print_table(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    out = text_out(args)
    sandbox = "no sandbox" if args.no_sandbox else "sandboxed"
    print(f"{args.game}: time control {args.time}, {sandbox}, first seed {args.seed}", file=out)
    print(f"{'players':>7}  {'A':<22} {'B':<22} {'matches':>7}  "
          f"{'A score [95% CI]':<22} {'Elo A-B [95% CI]':<22} {'A/B failures':<14} wall", file=out)
    for r in rows:
        mean, low, high = r["score"]
        score = f"{mean:.3f} [{low:.3f}, {high:.3f}]"
        rating = f"{fmt_elo(elo(mean), 0)} [{fmt_elo(elo(low), 0)}, {fmt_elo(elo(high), 0)}]"
        fails = "/".join(
            str(sum(r["failures"].get(bot, {}).values())) for bot in (r["a"], r["b"])
        )
        print(f"{r['players']:>7}  {r['a']:<22} {r['b']:<22} {r['matches']:>7}  "
              f"{score:<22} {rating:<22} {fails:<14} {r['wall_s']:.0f}s", file=out)
    for r in rows:
        for bot, per in r["failures"].items():
            detail = ", ".join(f"{n} {status}" for status, n in sorted(per.items()))
            print(f"  {r['players']} players, {bot}: {detail}", file=out)
