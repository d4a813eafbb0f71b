"""``niwa bench ladder``: finished matches per minute on this machine, and where the
time goes.

A fresh ladder on a temporary SQLite store plays ``--matches`` rated matches between
three copies of ``builtin:random`` per game (``--bot SPEC``, repeatable: these built-in
bots instead, e.g. ``builtin:mcts?seconds=0.05``, copied up to three per game) on the
worker pool, exactly as ``niwa ladder serve`` would. Reported:

* matches per minute over the whole run (pool start-up included) and from the first
  to the last finished match (steady state);
* worker time (wall time x workers) split into: bots (the recorded wall time of every
  decision in the replays), referee and engine (each match's recorded wall time less
  its bots' time: the two run interleaved in one process and are not told apart here;
  ``niwa bench referee`` and ``niwa bench engine`` measure them), and idle (worker time
  in no match: pool start-up, waiting for the runner);
* the store: the runner's own time scheduling, claiming and committing (in its one
  process, beside the workers), per match.

Built-in bots run in process on the ladder; ``--sandboxed`` runs them as sandboxed
processes over gRPC instead, as every submitted bot runs.

``--synthetic N --bots B`` instead times the store at scale: a store filled with N
finished rated matches between B bots of one game (synthetic rows in the real schema,
:mod:`niwa.commands.ladder_synthetic`) and the leaderboard, scheduling one match,
claiming and committing, each run in a fresh process on a fresh copy of that store
(:mod:`niwa.commands.ladder_timing`): the leaderboard's first read in the process (a fit
from nothing), read again, and read after each of ``--rounds`` more rated matches is
committed, by Plackett-Luce (``leaderboard_*``) and then by the pairwise fit
(``pairwise_leaderboard_*``); the last two of each and the store's operations are
judged against the goals in docs/benchmarks.md (< 50 ms, < 5 ms). ``--base DIR`` times
an older niwa (a git worktree) the same way, alternating with this one, and reports
each part's ratio to it; the load average is printed with every run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niwa import engine
from niwa.cli import UsageError
from niwa.commands import ladder_pg
from niwa.commands.bench import add_json_option, text_out, write_json
from niwa.commands.ladder_synthetic import fill
from niwa.ladder import executors, logs, submission
from niwa.ladder.db import DatabaseError, is_postgres_url
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, DONE, Match, Store
from niwa.referee.match import BotSpec
from niwa.referee.pool import cores
from niwa.referee.text import printable


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ladder",
        help="ladder matches per minute with random bots, and time outside the bots",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--matches", type=int, default=60, help="rated matches (default 60)")
    p.add_argument("--workers", type=int, default=0, help="worker processes (default: 1 per core)")
    p.add_argument("--game", action="append", help="only this game (repeatable; default all)")
    p.add_argument("--sandboxed", action="store_true", help="bots as sandboxed processes")
    p.add_argument("--bot", action="append", metavar="SPEC",
                   help="a built-in bot to play (builtin:NAME[?options]; repeatable; "
                   "default builtin:random)")
    p.add_argument("--seed", type=int, default=0, help="the scheduler's seed (default 0)")
    p.add_argument("--executor", choices=executors.KINDS, default=executors.LOCAL,
                   help="ray: play on a Ray cluster and on a local pool of as many workers, "
                   "alternating --repeat times, and compare (default local)")
    p.add_argument("--ray-address", default="", metavar="ADDRESS",
                   help="with --executor ray: the cluster's head (default: this machine's)")
    p.add_argument("--synthetic", type=int, metavar="N", default=0,
                   help="time the store at scale instead: N synthetic finished matches")
    p.add_argument("--bots", type=int, default=1000,
                   help="with --synthetic: bots in the game (default 1000)")
    p.add_argument("--rounds", type=int, default=20,
                   help="with --synthetic: timed schedules, claims, commits, board reads "
                   "per run (default 20)")
    p.add_argument("--repeat", type=int, default=3,
                   help="with --synthetic or --executor ray: runs of each, alternating "
                   "(default 3)")
    p.add_argument("--parts", default="schedule,claim,commit,leaderboard,pairwise",
                   help="with --synthetic: what to time (default: schedule,claim,commit,"
                   "leaderboard,pairwise: the board by Plackett-Luce, then by the pairwise "
                   "fit)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="with --synthetic: report wall time or the timing process's CPU "
                   "time (steadier when other work shares the cores; default wall)")
    p.add_argument("--base", type=Path, metavar="DIR",
                   help="with --synthetic: also time the niwa checked out in DIR (e.g. a git "
                   "worktree of an older commit) on the same store, alternating")
    p.add_argument("--base-parts",
                   help="with --base: what to time there (default: as --parts; leave out "
                   "leaderboard where its fit is too slow to wait for)")
    p.add_argument("--db", metavar="URL",
                   help="with --synthetic: time the store on this PostgreSQL server "
                   "(postgresql://...; its role needs CREATEDB: each run gets a fresh "
                   "database beside this one, dropped after it; default: SQLite files)")
    add_json_option(p)
    p.set_defaults(run=run)


def bot_seconds(replay: Path) -> float:
    """Total recorded wall time of the bots' decisions in one replay."""
    total_ms = 0.0
    with replay.open(encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            if entry.get("kind") == "decision":
                total_ms += sum(m.get("wall_ms") or 0.0 for m in entry["moves"])
    return total_ms / 1000


def run(args: argparse.Namespace) -> int:
    if args.synthetic:
        try:
            return run_synthetic(args)
        except DatabaseError as e:  # --db: no server, no CREATEDB right, ...
            raise UsageError(str(e)) from None
    games = args.game or engine.games()
    unknown = sorted(set(games) - set(engine.games()))
    if unknown:
        raise UsageError(f"no game {unknown[0]!r}; registered games: {', '.join(engine.games())}")
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    specs = args.bot or ["builtin:random"]
    for spec in specs:
        if not spec.startswith("builtin:"):
            raise UsageError(f"--bot {printable(spec)!r}: give a built-in bot, builtin:NAME")
        try:
            BotSpec.parse(spec).manifest()
        except ValueError as e:
            raise UsageError(f"--bot {printable(spec)!r}: {printable(str(e))}") from None
    logs.configure("error")
    if args.executor == executors.RAY:
        if importlib.util.find_spec("ray") is None:
            raise UsageError("bench ladder --executor ray needs Ray: pip install 'niwa[ray]'")
        from niwa.commands.bench_ladder_ray import compare  # ray: an optional extra

        return compare(args, games, specs)
    played = play(args, games, specs, executors.LOCAL, args.workers or cores())
    workers, wall, matches = played.slots, played.wall, played.matches
    match_s, inside_s, decisions = played.match_s, played.inside_s, played.decisions
    capacity = played.capacity
    mode = "sandboxed processes over gRPC" if args.sandboxed else "in process"
    out = text_out(args)
    print(f"ladder: {matches} matches of {', '.join(games)}; {', '.join(specs)} {mode}; "
          f"{workers} workers", file=out)
    print(f"  matches per minute      {matches / wall * 60:8.1f}  (whole run, {wall:.1f} s)",
          file=out)
    if played.steady_rate is not None:
        rate = played.steady_rate
        print(f"  matches per minute      {rate:8.1f}  (first to last finished match)", file=out)
    print(f"  decisions per match     {decisions / max(matches, 1):8.1f}", file=out)
    print(f"  worker time in matches  {match_s / capacity:8.1%}", file=out)
    print(f"  worker time in bots     {inside_s / capacity:8.1%}", file=out)
    print(f"    referee and engine    {(match_s - inside_s) / capacity:8.1%}", file=out)
    print(f"    idle                  {1 - match_s / capacity:8.1%}", file=out)
    print(f"  outside the bots        {1 - inside_s / capacity:8.1%}", file=out)
    store_ms = played.store_seconds / max(matches, 1) * 1000
    print(f"  store per match (runner) {store_ms:7.2f} ms", file=out)
    write_json(args, {
        "benchmark": "ladder", "games": games, "bots": specs, "sandboxed": args.sandboxed,
        "worker_time_in_referee_and_engine": (match_s - inside_s) / capacity,
        "worker_time_idle": 1 - match_s / capacity,
        "store_ms_per_match": store_ms,
        "workers": workers, "matches": matches, "wall_s": wall,
        "matches_per_minute": matches / wall * 60,
        "matches_per_minute_steady": played.steady_rate,
        "decisions_per_match": decisions / max(matches, 1),
        "worker_time_in_matches": match_s / capacity,
        "worker_time_in_bots": inside_s / capacity,
        "outside_the_bots": 1 - inside_s / capacity,
    })
    return 0


@dataclass(frozen=True)
class Played:
    """One bench run's figures."""

    slots: int  # matches at once
    wall: float  # seconds, start-up included
    steady: float  # seconds from the first to the last finished match
    finishes: int
    matches: int
    match_s: float  # the matches' recorded wall time
    inside_s: float  # the bots' recorded time
    decisions: int
    store_seconds: float

    @property
    def capacity(self) -> float:
        return self.wall * self.slots

    @property
    def steady_rate(self) -> float | None:
        return (self.finishes - 1) / self.steady * 60 if self.finishes > 1 else None

    @property
    def overhead_s(self) -> float:
        """Slot time per match outside its recorded wall time (start-up included)."""
        return (self.capacity - self.match_s) / max(self.matches, 1)


def play(
    args: argparse.Namespace, games: list[str], specs: list[str], executor: str, slots: int
) -> Played:
    """A fresh ladder on a temporary store plays ``args.matches`` on ``executor``."""
    with tempfile.TemporaryDirectory(prefix="niwa-bench-ladder-") as tmp:
        db = str(Path(tmp) / "ladder.db")
        store = Store.open(db)
        for game in games:
            for k in range(max(3, len(specs))):
                name = specs[k % len(specs)].removeprefix("builtin:")
                alias = f"{name.partition('?')[0]}-{k + 1}"
                submission.builtin_bot(store, name, game, ACTIVE, alias=alias)
        settings = Settings(
            db,
            workers=slots,
            max_matches=args.matches,
            seed=args.seed,
            log_level="error",
            games=tuple(games),
            builtins_in_process=not args.sandboxed,
            executor=executor,
            ray_address=getattr(args, "ray_address", ""),
        )
        finished_at: list[float] = []

        def on_finished(match: Match) -> None:
            finished_at.append(time.perf_counter())

        start = time.perf_counter()
        runner = Runner(settings, on_finished=on_finished)
        runner.run(threading.Event())
        wall = time.perf_counter() - start
        matches = store.matches.matches(state=DONE, limit=args.matches + 10)
        played = Played(
            slots=slots, wall=wall,
            steady=finished_at[-1] - finished_at[0] if len(finished_at) > 1 else wall,
            finishes=len(finished_at), matches=len(matches),
            match_s=sum(m.wall_s or 0.0 for m in matches),
            inside_s=sum(bot_seconds(store.files.replay_path(m.id)) for m in matches),
            decisions=sum(m.decisions or 0 for m in matches),
            store_seconds=runner.store_seconds,
        )  # fmt: skip
        store.close()
    return played


PARTS = ("schedule", "claim", "commit", "leaderboard", "pairwise")
#: The goals for this niwa's figures (docs/benchmarks.md): the store's operations each under 5 ms,
#: the leaderboard under 50 ms, read again or first after a commit (the first read
#: of a process that never fitted the game, leaderboard_first, fits from nothing).
GOALS_MS = {"schedule": 5.0, "claim": 5.0, "commit": 5.0, "leaderboard_again": 50.0,
            "leaderboard_after_commit": 50.0, "pairwise_leaderboard_again": 50.0,
            "pairwise_leaderboard_after_commit": 50.0}
#: The repository holding this niwa (its PYTHONPATH for the timing process).
HERE = Path(__file__).resolve().parents[2]


def _parts(text: str) -> str:
    wanted = [p.strip() for p in text.split(",") if p.strip()]
    unknown = sorted(set(wanted) - set(PARTS))
    if unknown or not wanted:
        raise UsageError(f"--parts: choose among {', '.join(PARTS)} (got {text!r})")
    return ",".join(wanted)


#: Runs the timing script (argv: bench_alias.py, the script, its arguments) after
#: serving an old checkout's top-level packages as niwa.<name> (bench_alias), if the
#: niwa on the path is from before niwa was one package.
_LAUNCH = """
import importlib.util, runpy, sys
spec = importlib.util.spec_from_file_location("_niwa_bench_alias", sys.argv[1])
alias = importlib.util.module_from_spec(spec)
spec.loader.exec_module(alias)
alias.install_if_old_layout()
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def time_store(
    root: Path, store: str, folder: Path, game: str, rounds: int, parts: str
) -> dict[str, Any]:
    """Run the timing script with ``root`` first on the path on the store at URL
    ``store`` (its files in ``folder``); its JSON figures."""
    script = HERE / "niwa" / "commands" / "ladder_timing.py"
    alias = HERE / "niwa" / "commands" / "bench_alias.py"
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCH, str(alias), str(script), store, game, str(rounds), parts],
        env=env, cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise UsageError(f"timing the store with {root} failed: {done.stderr.strip()[-300:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def run_synthetic(args: argparse.Namespace) -> int:
    games = args.game or ["blossom"]
    if len(games) != 1 or games[0] not in engine.games():
        raise UsageError(f"--synthetic times one game: --game one of {', '.join(engine.games())}")
    if args.bots < 2 or args.synthetic < 1 or args.rounds < 1 or args.repeat < 1:
        raise UsageError("--synthetic, --rounds and --repeat need at least 1, --bots 2")
    if args.base is not None and not any(
        (args.base / p / "store.py").is_file() or (args.base / p / "store").is_dir()
        for p in ("niwa/ladder", "ladder")
    ):
        raise UsageError(f"--base {args.base}: no niwa checkout there (no niwa/ladder/store)")
    if args.db is not None and not is_postgres_url(args.db):
        raise UsageError(f"--db {args.db}: give a postgresql:// URL (SQLite is the default)")
    game = games[0]
    parts = _parts(args.parts)
    base_parts = _parts(args.base_parts or args.parts)
    out = text_out(args)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="niwa-bench-ladder-") as tmp:
        template = Path(tmp) / "template.db"
        started = time.perf_counter()
        fill(template, game, args.synthetic, args.bots, seed=args.seed)
        copies = _Copies(template, args.db)
        print(f"ladder store: {args.synthetic} finished matches of {game} between {args.bots} "
              f"bots, filled in {time.perf_counter() - started:.1f} s, on {copies.engine}",
              file=out)
        sides = [("this", HERE, parts)]
        if args.base is not None:
            sides.append(("base", args.base.resolve(), base_parts))
        for k in range(args.repeat):
            for label, root, wanted in sides if k % 2 == 0 else sides[::-1]:
                folder = Path(tmp) / f"run-{k}-{label}"
                folder.mkdir()
                copy = copies.make(folder, f"run_{k}_{label}")
                load = os.getloadavg()[0]
                try:
                    figures = time_store(root, copy, folder, game, args.rounds, wanted)
                finally:
                    copies.drop(f"run_{k}_{label}")
                runs.append({"niwa": label, "load_1min": load, **figures})
                print(f"  run {k + 1} {label:4} (load {load:.2f}, {args.clock}): " + ", ".join(
                    f"{part} {statistics.median(v) * 1000:.2f} ms"
                    for part, v in _figures(figures, args.clock).items() if part != "open"
                ), file=out)
                shutil.rmtree(folder)
        copies.close()
    summary = _summarise(runs, args.clock)
    print(f"median of the runs' medians, ms of {args.clock} time (min-max over runs); "
          "ratio = this / base", file=out)
    for part, sides_ in summary.items():
        line = f"  {part:34}"
        for label in ("this", "base"):
            if label in sides_:
                s = sides_[label]
                line += f"  {label} {s['median_ms']:9.2f} ({s['min_ms']:.2f}-{s['max_ms']:.2f})"
        if "ratio" in sides_:
            line += f"  ratio {sides_['ratio']:.3f}"
        if part in GOALS_MS and "this" in sides_:
            goal = GOALS_MS[part]
            line += f"  goal < {goal:g} ms: " + (
                "ok" if sides_["this"]["median_ms"] < goal else "missed")
        print(line, file=out)
    write_json(args, {
        "benchmark": "ladder-store", "engine": copies.engine, "game": game,
        "matches": args.synthetic, "bots": args.bots, "rounds": args.rounds,
        "clock": args.clock, "runs": runs, "summary": summary,
    })  # fmt: skip
    return 0


def _figures(run_: dict[str, Any], clock: str) -> dict[str, list[float]]:
    """One run's seconds per part on ``clock``: wall (perf_counter) or cpu (the timing
    process's CPU time, which another process's load on the cores inflates far less)."""
    if clock == "cpu":
        cpu: dict[str, list[float]] = run_["cpu_s"]
        return cpu
    wall: dict[str, list[float]] = {**run_["times_s"], "open": [run_["open_s"]]}
    for prefix in ("", "pairwise_"):
        if f"{prefix}leaderboard_first_s" in run_:
            wall[f"{prefix}leaderboard_first"] = [run_[f"{prefix}leaderboard_first_s"]]
    return wall


class _Copies:
    """Fresh copies of the filled store for each run: SQLite files, or PostgreSQL
    databases made from a template database holding the filled store."""

    def __init__(self, template: Path, url: str | None) -> None:
        self.template, self.url = template, url
        self.engine = "sqlite" if url is None else "postgresql"
        if url is not None:
            self.prefix = f"{ladder_pg.database_name(url)}_bench"
            ladder_pg.drop_database(url, f"{self.prefix}_template")  # a killed run's
            ladder_pg.copy_store(template, ladder_pg.create_database(
                url, f"{self.prefix}_template"))  # fmt: skip

    def make(self, folder: Path, name: str) -> str:
        if self.url is None:
            copy = folder / "ladder.db"
            shutil.copy(self.template, copy)
            return str(copy)
        return ladder_pg.create_database(self.url, f"{self.prefix}_{name}",
                                         template=f"{self.prefix}_template")

    def drop(self, name: str) -> None:
        if self.url is not None:
            ladder_pg.drop_database(self.url, f"{self.prefix}_{name}")

    def close(self) -> None:
        if self.url is not None:
            ladder_pg.drop_database(self.url, f"{self.prefix}_template")


def _summarise(runs: list[dict[str, Any]], clock: str = "wall") -> dict[str, dict[str, Any]]:
    """Per part and side: the median over runs of each run's median, its spread, and
    this side's ratio to the base."""
    medians: dict[str, dict[str, list[float]]] = {}
    for run_ in runs:
        for part, values in _figures(run_, clock).items():
            medians.setdefault(part, {}).setdefault(run_["niwa"], []).append(
                statistics.median(values))
    summary: dict[str, dict[str, Any]] = {}
    for part, sides in medians.items():
        entry: dict[str, Any] = {
            label: {"median_ms": statistics.median(v) * 1000, "min_ms": min(v) * 1000,
                    "max_ms": max(v) * 1000}
            for label, v in sides.items()
        }  # fmt: skip
        if "this" in entry and "base" in entry and entry["base"]["median_ms"]:
            entry["ratio"] = entry["this"]["median_ms"] / entry["base"]["median_ms"]
        summary[part] = entry
    return summary
