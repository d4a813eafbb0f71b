"""``niwa bench ladder``: finished matches per minute on this machine, and where the
time goes.

A fresh ladder on a temporary SQLite store plays ``--matches`` rated matches between
three copies of ``builtin:random`` per game on the worker pool, exactly as
``niwa ladder serve`` would. Reported:

* matches per minute over the whole run (pool start-up included) and from the first
  to the last finished match (steady state);
* the share of worker time spent inside the bots (the recorded wall time of every
  decision) and outside them (referee, engine, replay writing, scheduling, commits,
  idle): ``outside = 1 - inside / (wall time x workers)``.

Built-in bots run in process on the ladder; ``--sandboxed`` runs them as sandboxed
processes over gRPC instead, as every submitted bot runs.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import engine
from ladder import logs, submission
from ladder.runner import Runner, Settings
from ladder.store import ACTIVE, DONE, Match, Store
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json


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
    p.add_argument("--seed", type=int, default=0, help="the scheduler's seed (default 0)")
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
    games = args.game or engine.games()
    unknown = sorted(set(games) - set(engine.games()))
    if unknown:
        raise UsageError(f"no game {unknown[0]!r}; registered games: {', '.join(engine.games())}")
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    logs.configure("error")
    with tempfile.TemporaryDirectory(prefix="niwa-bench-ladder-") as tmp:
        db = str(Path(tmp) / "ladder.db")
        store = Store.open(db)
        for game in games:
            for k in range(1, 4):
                submission.builtin_bot(store, "random", game, ACTIVE, alias=f"random-{k}")
        settings = Settings(
            db,
            workers=args.workers,
            max_matches=args.matches,
            seed=args.seed,
            log_level="error",
            games=tuple(games),
            builtins_in_process=not args.sandboxed,
        )
        finished_at: list[float] = []

        def on_finished(match: Match) -> None:
            finished_at.append(time.perf_counter())

        start = time.perf_counter()
        Runner(settings, on_finished=on_finished).run(threading.Event())
        wall = time.perf_counter() - start
        matches = store.matches(state=DONE, limit=args.matches + 10)
        match_s = sum(m.wall_s or 0.0 for m in matches)
        inside_s = sum(bot_seconds(store.replay_path(m.id)) for m in matches)
        decisions = sum(m.decisions or 0 for m in matches)
        store.close()
    workers = settings.worker_count
    capacity = wall * workers
    steady = finished_at[-1] - finished_at[0] if len(finished_at) > 1 else wall
    mode = "sandboxed processes over gRPC" if args.sandboxed else "in process"
    out = text_out(args)
    print(f"ladder: {len(matches)} matches of {', '.join(games)}; random bots {mode}; "
          f"{workers} workers", file=out)
    print(f"  matches per minute      {len(matches) / wall * 60:8.1f}  (whole run, {wall:.1f} s)",
          file=out)
    if len(finished_at) > 1:
        rate = (len(finished_at) - 1) / steady * 60
        print(f"  matches per minute      {rate:8.1f}  (first to last finished match)", file=out)
    print(f"  decisions per match     {decisions / max(len(matches), 1):8.1f}", file=out)
    print(f"  worker time in matches  {match_s / capacity:8.1%}", file=out)
    print(f"  worker time in bots     {inside_s / capacity:8.1%}", file=out)
    print(f"  outside the bots        {1 - inside_s / capacity:8.1%}", file=out)
    write_json(args, {
        "benchmark": "ladder", "games": games, "sandboxed": args.sandboxed,
        "workers": workers, "matches": len(matches), "wall_s": wall,
        "matches_per_minute": len(matches) / wall * 60,
        "matches_per_minute_steady": (len(finished_at) - 1) / steady * 60
        if len(finished_at) > 1 else None,
        "decisions_per_match": decisions / max(len(matches), 1),
        "worker_time_in_matches": match_s / capacity,
        "worker_time_in_bots": inside_s / capacity,
        "outside_the_bots": 1 - inside_s / capacity,
    })
    return 0
