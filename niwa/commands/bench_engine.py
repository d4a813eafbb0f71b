"""``niwa bench engine [GAME]``: random playouts per second, per game and player count.

Player decisions and chance applies are counted apart: chance is a draw from the deck, not
a decision, and counting it as one made chance-heavy games look up to 3x faster. Each case
is warmed up before it is timed (the first second ran at about half speed)."""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path
from typing import Any, Final, TextIO

from niwa import engine
from niwa.cli import UsageError
from niwa.commands import bench_engine_snapshots, bench_tree
from niwa.commands.bench import add_json_option, text_out, write_json
from niwa.commands.bench_engine_playouts import CLOCKS as CLOCKS  # bench_search uses it
from niwa.commands.bench_engine_playouts import Rate, measure

#: This checkout, measured by the same child process as a baseline is.
HERE: Final = Path(__file__).resolve().parents[2]

#: The project's goals (docs/benchmarks.md): pure-Python random playouts per second.
GOAL_DECISIONS_PER_S: Final = 100_000
GOAL_APPLIES_PER_S: Final = 150_000


def register(sub: Any) -> None:
    p = sub.add_parser(
        "engine",
        help="random-playout player decisions/s and chance applies/s per game and player count",
        description="Plays random games in process (no referee) and reports the median of "
        "several runs: player decisions (a joint move of simultaneous seats counts once) and "
        "chance applies per second, each apart, judged against the goals "
        f"(>= {GOAL_DECISIONS_PER_S:,} player decisions/s, >= {GOAL_APPLIES_PER_S:,} "
        "applies/s with chance). Every case is warmed up before it is timed.",
    )
    p.add_argument("game", nargs="?", help="one registered game (default: all)")
    p.add_argument("--players", type=int, action="append",
                   help="player count (repeatable; default: every count the game allows)")
    p.add_argument("--runs", type=int, default=5, help="timed runs per case (default 5)")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one run (default 1)")
    p.add_argument("--warmup", type=float, default=0.5,
                   help="seconds of untimed play before each case's runs (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="first run's seed (default 0)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="what a second is: wall time (default), or this process's CPU time, "
                   "steadier when other work shares the cores")
    p.add_argument("--baseline", metavar="CHECKOUT", type=Path,
                   help="also measure another checkout (e.g. a git worktree of the base "
                   "commit) on its own games: its engine/ and the games its pyproject.toml "
                   "registers, imported from it, never this checkout's (a checkout whose "
                   "games cannot be loaded so is refused, saying why); run by run "
                   "alternating with this one, each run in a fresh process, and print the "
                   "ratio this / baseline per case")
    p.add_argument("--snapshots", action="store_true",
                   help="instead of playouts, time state.to_json(), state.observe(0) and "
                   "engine.state_hash per call early and late in one random game: on the "
                   "state after 10 applies and the last one before the end ('same state'), "
                   "and once after every apply as the game is played ('in play': calls "
                   "11-60 and the last 50); print the growth late / early and the "
                   "snapshot's size in canonical JSON. --runs repeats the same game "
                   "(--seed); medians are printed")
    p.add_argument("--calls", type=int, default=500,
                   help="with --snapshots: timed calls of each per state (default 500)")
    add_json_option(p)
    p.set_defaults(run=run)


def _child_rows(name: str, players: int, args: argparse.Namespace, seed: int,
                tree: Path) -> list[dict[str, Any]]:
    """One run of this case on ``tree``'s own games, in a fresh process (its own
    warm-up; bench_tree); its rows."""
    request = {"kind": "snapshots" if args.snapshots else "playouts", "game": name,
               "players": players, "seed": seed, "clock": args.clock,
               "seconds": args.seconds, "warmup": args.warmup, "calls": args.calls}
    what = "--baseline" if tree != HERE else "this checkout"
    try:
        rows: list[dict[str, Any]] = bench_tree.run(tree, request, what)["rows"]
    except bench_tree.TreeError as e:
        raise UsageError(str(e)) from e
    return rows


def _child_run(name: str, players: int, args: argparse.Namespace, seed: int,
               tree: Path) -> Rate:
    [row] = _child_rows(name, players, args, seed, tree)
    return Rate(row["games_per_s"], row["player_decisions_per_s"], row["chance_applies_per_s"])


def _median(runs: list[Rate]) -> Rate:
    return Rate(statistics.median(r.games for r in runs),
                statistics.median(r.decisions for r in runs),
                statistics.median(r.chance for r in runs))


def run_against(args: argparse.Namespace, names: list[str], out: TextIO) -> list[dict[str, Any]]:
    """Every case measured here and in ``--baseline``, alternating run by run (the order
    flips each run, so a change of load falls on both); ratios of paired runs."""
    print(f"{'game':<10} {'players':>7} {'base dec/s':>11} {'this dec/s':>11} {'ratio':>6} "
          f"{'min-max':>11} {'base app/s':>11} {'this app/s':>11} {'ratio':>6}  goal (this)",
          file=out)
    rows: list[dict[str, Any]] = []
    base = args.baseline.resolve()
    for name, players in _cases(args, names):
        here: list[Rate] = []
        there: list[Rate] = []
        for r in range(args.runs):
            seed = args.seed + r
            order = [(here, HERE), (there, base)]
            for into, tree in order if r % 2 == 0 else order[::-1]:
                into.append(_child_run(name, players, args, seed, tree))
        ratios = [a.decisions / b.decisions for a, b in zip(here, there, strict=True)]
        now, was = _median(here), _median(there)
        ratio, app_ratio = statistics.median(ratios), now.applies / was.applies
        judged = verdict(now)
        print(f"{name:<10} {players:>7} {was.decisions:>11.0f} {now.decisions:>11.0f} "
              f"{ratio:>6.2f} {min(ratios):>5.2f}-{max(ratios):<5.2f} {was.applies:>11.0f} "
              f"{now.applies:>11.0f} {app_ratio:>6.2f}  {judged}", file=out, flush=True)
        rows.append({"game": name, "players": players,
                     "baseline_player_decisions_per_s": was.decisions,
                     "player_decisions_per_s": now.decisions,
                     "baseline_applies_per_s": was.applies, "applies_per_s": now.applies,
                     "chance_applies_per_s": now.chance, "games_per_s": now.games,
                     "ratio_median": ratio, "ratio_min": min(ratios),
                     "ratio_max": max(ratios), "meets_goal": judged == "ok"})
    return rows


def _cases(args: argparse.Namespace, names: list[str]) -> list[tuple[str, int]]:
    cases = []
    for name in names:
        info = engine.load(name).info
        for players in args.players or range(info.min_players, info.max_players + 1):
            if not info.min_players <= players <= info.max_players:
                raise UsageError(f"{name} is played by {info.min_players}-{info.max_players}")
            cases.append((name, players))
    return cases


def verdict(rate: Rate) -> str:
    """Whether a case meets both goals, or which it misses."""
    missed = [what for what, ok in (("decisions", rate.decisions >= GOAL_DECISIONS_PER_S),
                                    ("applies", rate.applies >= GOAL_APPLIES_PER_S)) if not ok]
    return "ok" if not missed else "below goal: " + ", ".join(missed)


def _header(out: TextIO) -> None:
    print(f"{'game':<10} {'players':>7} {'games/s':>9} {'decisions/s':>12} {'chance/s':>9} "
          f"{'applies/s':>10} {'spread %':>8} {'dec/game':>8}  goal", file=out)


def measure_cases(args: argparse.Namespace, names: list[str], out: TextIO) -> list[dict[str, Any]]:
    """Every case measured in this process, warm-up first; medians of the runs."""
    _header(out)
    rows: list[dict[str, Any]] = []
    for name, players in _cases(args, names):
        game = engine.load(name)
        if args.warmup > 0:
            measure(game, players, args.warmup, args.seed - 1, args.clock)
        runs = [measure(game, players, args.seconds, args.seed + r, args.clock)
                for r in range(args.runs)]
        med = _median(runs)
        low, high = min(r.decisions for r in runs), max(r.decisions for r in runs)
        spread = 100 * (high - low) / med.decisions
        judged = verdict(med)
        print(f"{name:<10} {players:>7} {med.games:>9.1f} {med.decisions:>12.0f} "
              f"{med.chance:>9.0f} {med.applies:>10.0f} {spread:>8.1f} "
              f"{med.decisions / med.games:>8.1f}  {judged}", file=out, flush=True)
        rows.append({"game": name, "players": players, "games_per_s": med.games,
                     "player_decisions_per_s": med.decisions,
                     "chance_applies_per_s": med.chance, "applies_per_s": med.applies,
                     "player_decisions_min": low, "player_decisions_max": high,
                     "decisions_per_game": med.decisions / med.games,
                     "meets_goal": judged == "ok"})
    return rows


def _snapshot_medians(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per timed call, the first run's row with the medians of every run's µs."""
    rows = []
    for i, first in enumerate(runs[0]):
        row = dict(first)
        for key in ("early_us", "late_us"):
            row[key] = statistics.median(run[i][key] for run in runs)
        row["growth"] = row["late_us"] / row["early_us"]
        rows.append(row)
    return rows


def snapshot_cases(args: argparse.Namespace, names: list[str],
                   out: TextIO) -> list[dict[str, Any]]:
    """``--snapshots``: per case and timed call, early and late µs per call and the
    growth, here only or beside ``--baseline`` (runs alternating in fresh processes)."""
    base = args.baseline
    side = "" if base is None else "this "
    print(f"{'game':<10} {'players':>7} {'call':<8} {'way':<10} "
          + ("" if base is None else f"{'base early':>10} {'base late':>9} {'growth':>6}  ")
          + f"{side + 'early':>10} {side + 'late':>9} {'growth':>6}  µs per call; "
          "snapshot bytes early -> late", file=out)
    rows: list[dict[str, Any]] = []
    for name, players in _cases(args, names):
        here: list[list[dict[str, Any]]] = []
        there: list[list[dict[str, Any]]] = []
        for r in range(args.runs):
            if base is None:
                here.append(bench_engine_snapshots.measure(
                    name, players, args.seed, args.calls, CLOCKS[args.clock]))
                continue
            order = [(here, HERE), (there, base.resolve())]
            for into, tree in order if r % 2 == 0 else order[::-1]:
                into.append(_child_rows(name, players, args, args.seed, tree))
        now = _snapshot_medians(here)
        was = _snapshot_medians(there) if there else [{} for _ in now]
        for row, old in zip(now, was, strict=True):
            then = "" if not old else (f"{old['early_us']:>10.1f} {old['late_us']:>9.1f} "
                                       f"{old['growth']:>6.2f}  ")
            print(f"{name:<10} {players:>7} {row['what']:<8} {row['way']:<10} "
                  f"{then}{row['early_us']:>10.1f} "
                  f"{row['late_us']:>9.1f} {row['growth']:>6.2f}  "
                  f"{row['early_bytes']} -> {row['late_bytes']}", file=out, flush=True)
            if old:
                row |= {f"baseline_{k}": old[k] for k in
                        ("early_us", "late_us", "growth", "late_bytes", "late_hash")}
            rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    names = engine.games()
    if args.game is not None:
        if args.game not in names:
            raise UsageError(f"unknown game {args.game!r}; registered games: {', '.join(names)}")
        names = [args.game]
    if args.runs < 1 or args.seconds <= 0 or args.warmup < 0 or args.calls < 1:
        raise UsageError("--runs and --calls must be at least 1, --seconds above 0 and "
                         "--warmup 0 or more")
    out = text_out(args)
    load_start = os.getloadavg()[0]
    goals = (f"{args.calls} timed calls per state" if args.snapshots else
             f"goals: >= {GOAL_DECISIONS_PER_S:,} player decisions/s, >= "
             f"{GOAL_APPLIES_PER_S:,} applies/s (decisions + chance)")
    print(f"load average {load_start:.2f} on {os.cpu_count()} CPUs; {args.clock} clock; {goals}",
          file=out)
    if args.snapshots:
        rows = snapshot_cases(args, names, out)
    elif args.baseline:
        rows = run_against(args, names, out)
    else:
        rows = measure_cases(args, names, out)
    load_end = os.getloadavg()[0]
    print(f"load average at the end: {load_end:.2f}", file=out)
    write_json(args, {"benchmark": "engine snapshots" if args.snapshots else "engine",
                      "runs": args.runs, "seconds": args.seconds, "calls": args.calls,
                      "warmup": args.warmup, "seed": str(args.seed), "clock": args.clock,
                      "goal_player_decisions_per_s": GOAL_DECISIONS_PER_S,
                      "goal_applies_per_s": GOAL_APPLIES_PER_S,
                      "baseline": None if args.baseline is None else str(args.baseline),
                      "load_average_start": load_start, "load_average_end": load_end,
                      "rows": rows})
    return 0
