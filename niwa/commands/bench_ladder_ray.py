"""``niwa bench ladder --executor ray``: the same ladder run on a Ray cluster and on a
local pool of as many workers as the cluster has CPUs, alternating ``--repeat`` times
(each run a fresh store, a fresh pool, a fresh connection to the cluster), with the
load average printed at each run.

Reported per executor (the median over the runs): matches per minute over the whole
run and from the first to the last finished match, and the overhead per match: slot
time (wall time x slots) per match outside the match's own recorded wall time, which
holds start-up, scheduling, handing the job over, fetching the result and the replay.
"""

from __future__ import annotations

import argparse
import os
import statistics

import ray

from niwa.cli import UsageError
from niwa.commands.bench import text_out, write_json
from niwa.commands.bench_ladder import Played, play
from niwa.ladder import executors
from niwa.ladder.ray_executor import connect_problem


def cluster_cpus(address: str) -> int:
    try:
        ray.init(address=address or "auto", log_to_driver=False, configure_logging=False)
    except (ConnectionError, ray.exceptions.AuthenticationError) as e:
        raise UsageError(connect_problem(address, e)) from None
    try:
        return int(ray.cluster_resources().get("CPU", 0))
    finally:
        ray.shutdown()


def compare(args: argparse.Namespace, games: list[str], specs: list[str]) -> int:
    if args.repeat < 1:
        raise UsageError("--repeat needs at least 1")
    slots = cluster_cpus(args.ray_address)
    if slots < 1:
        raise UsageError("the Ray cluster has no CPU to play on")
    out = text_out(args)
    mode = "sandboxed processes over gRPC" if args.sandboxed else "in process"
    print(f"ladder: {args.matches} matches of {', '.join(games)}; {', '.join(specs)} {mode}; "
          f"{slots} slots (the cluster's CPUs; as many local workers)", file=out)  # fmt: skip
    runs: dict[str, list[Played]] = {kind: [] for kind in executors.KINDS}
    for k in range(args.repeat):
        for kind in executors.KINDS:
            played = play(args, games, specs, kind, slots)
            runs[kind].append(played)
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"  run {k + 1} {kind:5}  {played.matches / played.wall * 60:7.1f} matches/min"
                  f"  overhead {played.overhead_s * 1000:7.1f} ms/match  load {load}",
                  file=out)  # fmt: skip
    figures = {kind: summary(found) for kind, found in runs.items()}
    local, on_ray = figures[executors.LOCAL], figures[executors.RAY]
    print(f"  {'median':24} {'local':>9} {'ray':>9} {'ray/local':>10}", file=out)
    for key, label in (
        ("matches_per_minute", "matches per minute"),
        ("matches_per_minute_steady", "  first to last finished"),
        ("overhead_ms_per_match", "overhead ms per match"),
    ):
        ratio = on_ray[key] / local[key] if local[key] else float("nan")
        print(f"  {label:24} {local[key]:9.1f} {on_ray[key]:9.1f} {ratio:10.2f}", file=out)
    write_json(args, {
        "benchmark": "ladder-executors", "games": games, "bots": specs,
        "sandboxed": args.sandboxed, "slots": slots, "repeat": args.repeat, **{
            kind: {**figures[kind], "runs": [p.matches / p.wall * 60 for p in runs[kind]]}
            for kind in executors.KINDS
        },
    })  # fmt: skip
    return 0


def summary(runs: list[Played]) -> dict[str, float]:
    return {
        "matches_per_minute": statistics.median(p.matches / p.wall * 60 for p in runs),
        "matches_per_minute_steady": statistics.median(p.steady_rate or 0.0 for p in runs),
        "overhead_ms_per_match": statistics.median(p.overhead_s * 1000 for p in runs),
    }
