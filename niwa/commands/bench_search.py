"""``niwa bench search``: how many ISMCTS iterations the built-in search makes per second.

For each game and player count, a seeded random playout stops at a few positions (spread
over the match, chance and forced moves skipped); at each, the search of ``builtin:mcts``
(``niwa.bots.search.ISMCTS`` with the game's heuristic, or with ``--eval learned`` its
learned value) thinks for ``--seconds`` of wall time, as the bot does with
``builtin:mcts?seconds=S``, or for a fixed ``--iterations``.
The figure is iterations per second of that search (of wall time, or of this process's
CPU time with ``--clock cpu``), median over the positions, with the load average
printed. On a busy machine a fixed iteration count on the CPU clock is the steady one:
a search on a wall-clock budget does fewer iterations when it gets less of a core.

``--baseline CHECKOUT`` measures another checkout's search (its ``bots`` package: the
search and the heuristics) on the same positions of this checkout's engine, run by run
alternating with this one, each run in a fresh process, and prints the ratio.
``--baseline-stack CHECKOUT`` measures the whole of another checkout instead: its engine
and its search, imported ahead of this checkout's (only this harness, which picks the
positions and times the search, is shared), as a user upgrading from it would compare.
Each run reports a fingerprint (``engine.state_hash``) of every position it searched; the
output says so when the two sides' positions differ.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from niwa import engine
from niwa.bots import heuristics
from niwa.bots.search import ISMCTS, SearchLimits
from niwa.cli import UsageError
from niwa.commands.bench import (
    add_json_option,
    baseline_packages,
    run_child,
    text_out,
    write_json,
)
from niwa.commands.bench_engine import CLOCKS
from niwa.engine import CHANCE, State
from niwa.engine.testing.checks import playout


def register(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="iterations per second of the built-in ISMCTS search, per game and player count",
        description="Runs the search of builtin:mcts for --seconds at a few positions of a "
        "seeded random playout of each game and player count, and prints iterations per "
        "second (median over the positions, with the range).",
    )
    p.add_argument("games", nargs="*", metavar="GAME", help="games (default: every game)")
    p.add_argument("--players", type=int, action="append",
                   help="player count (repeatable; default: every count the game allows)")
    p.add_argument("--seconds", type=float, default=0.1,
                   help="search time per position, as mcts?seconds=S (default 0.1)")
    p.add_argument("--positions", type=int, default=5,
                   help="positions searched per game and player count (default 5)")
    p.add_argument("--iterations", type=int,
                   help="search a fixed number of iterations per position instead of "
                   "--seconds (steadier under load, with --clock cpu)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="what a second of the rate is: wall time (default), or this "
                   "process's CPU time")
    p.add_argument("--seed", type=int, default=0, help="seed of the playouts (default 0)")
    p.add_argument("--eval", choices=("heuristic", "learned"), default="heuristic",
                   help="the leaf evaluation, as builtin:mcts?eval=...: the game's heuristic"
                        " (default) or its learned value (niwa.bots.learned)")
    p.add_argument("--baseline", metavar="CHECKOUT", type=Path,
                   help="also measure the search (bots/ package) of another checkout, e.g. "
                   "a git worktree of the base commit, on the same positions of this "
                   "engine, run by run alternating with this one, each run in a fresh "
                   "process, and print the ratio this / baseline per case")
    p.add_argument("--baseline-stack", metavar="CHECKOUT", type=Path,
                   help="like --baseline, but the other checkout's engine runs too (its "
                   "engine/ and bots/ packages ahead of this checkout's, in a fresh process "
                   "per run): the whole stack's speed on the same seeded positions, which "
                   "are checked to be the same by their state hashes")
    p.add_argument("--runs", type=int, default=3,
                   help="with --baseline or --baseline-stack: runs of each side per case "
                   "(default 3)")
    add_json_option(p)
    p.set_defaults(run=run)


@dataclass(frozen=True)
class Position:
    state: State
    seat: int


def positions(game: engine.Game, players: int, count: int, seed: int) -> list[Position]:
    """Up to ``count`` decisions of one seeded random playout, evenly spread over it:
    only decisions with a real choice (two legal actions or more)."""
    seen: list[Position] = []
    for state, _ in playout(game, players, seed):
        movers = state.to_move()
        if movers != (CHANCE,) and len(state.legal_actions(movers[0])) > 1:
            seen.append(Position(state.clone(), movers[0]))
    if len(seen) <= count:
        return seen
    step = len(seen) / count
    return [seen[int(i * step)] for i in range(count)]


def search_rate(game: engine.Game, name: str, at: Position, limits: SearchLimits, seed: int,
                clock: str = "wall", evaluate: heuristics.Evaluation | None = None) -> float:
    """Iterations per second of ``clock`` of one search at one position, valued by
    ``evaluate`` (default: the game's heuristic)."""
    value = heuristics.for_game(name) if evaluate is None else evaluate
    search = ISMCTS(game, value, rng=random.Random(seed))
    legal = at.state.legal_actions(at.seat)
    now = CLOCKS[clock]
    started = now()
    search.choose(at.state.observe(at.seat), at.seat, legal, limits)
    return search.iterations / (now() - started)


def _cases(args: argparse.Namespace) -> list[tuple[str, int]]:
    cases = []
    for name in args.games or engine.games():
        if name not in engine.games():
            raise UsageError(f"no game {name!r}; games: {', '.join(engine.games())}")
        info = engine.load(name).info
        for players in args.players or range(info.min_players, info.max_players + 1):
            if not info.min_players <= players <= info.max_players:
                raise UsageError(f"{name} is played by {info.min_players}-"
                                 f"{info.max_players} players")
            cases.append((name, players))
    return cases


def measure_cases(args: argparse.Namespace, out: TextIO) -> list[dict[str, Any]]:
    """Every case searched in this process; median and range over the positions."""
    print(f"{'game':<10} {'players':>7} {'positions':>9} {'iterations/s':>13} "
          f"{'min':>9} {'max':>9}", file=out, flush=True)
    limits = SearchLimits(iterations=args.iterations,
                          seconds=None if args.iterations else args.seconds)
    rows: list[dict[str, Any]] = []
    for name, players in _cases(args):
        game = engine.load(name)
        found = positions(game, players, args.positions, args.seed)
        evaluate = None
        if args.eval == "learned":  # imported here: a baseline from before it has none
            from niwa.bots import learned

            evaluate = learned.evaluation(name, players)
        rates = [search_rate(game, name, at, limits, args.seed + i, args.clock, evaluate)
                 for i, at in enumerate(found)]
        if not rates:
            continue
        median = statistics.median(rates)
        print(f"{name:<10} {players:>7} {len(rates):>9} {median:>13.0f} "
              f"{min(rates):>9.0f} {max(rates):>9.0f}", file=out, flush=True)
        rows.append({"game": name, "players": players, "positions": len(rates),
                     "iterations_per_s": median, "min": min(rates), "max": max(rates),
                     "position_hashes": [engine.state_hash(at.state) for at in found],
                     "engine": str(Path(engine.__file__).resolve().parent)})
    return rows


def _child_rate(args: argparse.Namespace, name: str, players: int,
                first: str | None) -> dict[str, Any]:
    """One run of one case in a fresh process: its row (the median rate over the
    positions, their hashes, the engine it imported)."""
    argv = ["bench", "search", name, "--players", str(players), "--positions",
            str(args.positions), "--seconds", str(args.seconds), "--clock", args.clock,
            "--seed", str(args.seed), "--eval", args.eval, "--json", "-"]
    if args.iterations:
        argv += ["--iterations", str(args.iterations)]
    rows = run_child(argv, first)["rows"]
    if not rows:
        raise UsageError(f"{name} with {players} players has no position with a choice")
    row: dict[str, Any] = rows[0]
    return row


def run_against(args: argparse.Namespace, out: TextIO) -> list[dict[str, Any]]:
    """Every case measured here and with the baseline, alternating run by run (the order
    flips each run, so a change of load falls on both); ratios of paired runs. The
    baseline is ``--baseline``'s search on this engine, or with ``--baseline-stack``
    that checkout's search on its own engine."""
    print(f"{'game':<10} {'players':>7} {'base it/s':>10} {'this it/s':>10} {'ratio':>6} "
          f"{'min-max':>11}  positions", file=out, flush=True)
    stack = args.baseline_stack is not None
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="niwa-baseline-") as tmp:
        # that search and its heuristics (and, for the stack, its engine); this harness
        theirs = baseline_packages(args.baseline_stack if stack else args.baseline,
                                   ["bots", "engine"] if stack else ["bots"], Path(tmp))
        for name, players in _cases(args):
            here: list[dict[str, Any]] = []
            there: list[dict[str, Any]] = []
            for r in range(args.runs):
                order = [(here, None), (there, theirs)]
                for into, first in order if r % 2 == 0 else order[::-1]:
                    into.append(_child_rate(args, name, players, first))
            rows.append(_paired_row(name, players, here, there, out))
    return rows


def _paired_row(name: str, players: int, here: list[dict[str, Any]],
                there: list[dict[str, Any]], out: TextIO) -> dict[str, Any]:
    """The ratios of paired runs of one case, and whether both sides searched the same
    positions (every run's hashes against this side's first)."""
    ratios = [a["iterations_per_s"] / b["iterations_per_s"]
              for a, b in zip(here, there, strict=True)]
    now = statistics.median(r["iterations_per_s"] for r in here)
    was = statistics.median(r["iterations_per_s"] for r in there)
    ratio = statistics.median(ratios)
    same = all(r["position_hashes"] == here[0]["position_hashes"] for r in here + there)
    print(f"{name:<10} {players:>7} {was:>10.0f} {now:>10.0f} {ratio:>6.2f} "
          f"{min(ratios):>5.2f}-{max(ratios):<5.2f}  "
          f"{'same' if same else 'DIFFER (state hashes)'}", file=out, flush=True)
    return {"game": name, "players": players, "baseline_iterations_per_s": was,
            "iterations_per_s": now, "ratio_median": ratio, "ratio_min": min(ratios),
            "ratio_max": max(ratios), "same_positions": same,
            "engine": here[0]["engine"], "baseline_engine": there[0]["engine"]}


def run(args: argparse.Namespace) -> int:
    if args.seconds <= 0 or args.positions < 1 or args.runs < 1:
        raise UsageError("--seconds must be above 0, --positions and --runs at least 1")
    if args.iterations is not None and args.iterations < 1:
        raise UsageError("--iterations must be at least 1")
    _cases(args)  # refuse a bad game or player count before measuring anything
    out = text_out(args)
    load = os.getloadavg()[0]
    effort = (f"{args.iterations} iterations" if args.iterations
              else f"{args.seconds:g} s (wall clock)")
    print(f"load average {load:.2f} on {os.cpu_count()} CPUs; builtin:mcts?eval={args.eval} "
          f"search, {effort} per position, rate per {args.clock} second", file=out)
    if args.baseline and args.baseline_stack:
        raise UsageError("give --baseline or --baseline-stack, not both")
    if args.baseline_stack:
        print(f"baseline: the whole stack of {args.baseline_stack} (its engine and search)",
              file=out)
    elif args.baseline:
        print(f"baseline: the search of {args.baseline} on this checkout's engine", file=out)
    against = args.baseline or args.baseline_stack
    rows = run_against(args, out) if against else measure_cases(args, out)
    end_load = os.getloadavg()[0]
    print(f"load average at the end: {end_load:.2f}", file=out)
    write_json(args, {"bench": "search", "seconds": args.seconds, "eval": args.eval,
                      "iterations": args.iterations, "clock": args.clock,
                      "baseline": None if args.baseline is None else str(args.baseline),
                      "baseline_stack": (None if args.baseline_stack is None
                                         else str(args.baseline_stack)),
                      "load_average": load, "load_average_end": end_load, "rows": rows})
    return 0
