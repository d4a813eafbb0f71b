"""A/B timing of the referee in process, for docs/benchmarks.md (section "Referee").

Run under two code trees that share the public match API, alternating::

    PYTHONPATH=/tmp/base-perf-referee python docs/benchmarks/referee_ab.py GAME PLAYERS N SEED
    PYTHONPATH=.                     python docs/benchmarks/referee_ab.py GAME PLAYERS N SEED

Each run plays N matches of built-in random bots in process with a replay file, then
re-plays every match's recorded moves with the engine alone (to_move, legal_actions
of each seat to move, chance sampling, apply), and prints one JSON line: the referee's
cost per decision outside the engine = (match time - engine-only time) / decisions,
in CPU time (what a loaded machine changes least) of the whole ``play_match`` call
(``referee_cpu_us``: trio start-up, creating the file, seats, loop, result) and of the
match loop alone (``loop_cpu_us``: ``_Match.play``, timed by wrapping it), and in wall
time of the loop (``referee_wall_us``: ``MatchOutcome.wall_s``); ``loop_cpu_minus_bots_us``
also takes away the bots' own CPU time (the moves' recorded ``cpu_ms``), which is what
``niwa bench referee`` judges.
Only stable names are used (MatchSpec, play_match, replay.read, engine), so the same
file times the base commit and the branch.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from niwa.referee import match
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec, MatchSpec, play_match

_loop_cpu = [0.0]
_play = match._Match.play


async def _timed_play(self: Any, writer: Any) -> Any:
    """The match loop (seats started, every step, results written), in CPU time."""
    cpu0 = time.thread_time()
    try:
        return await _play(self, writer)
    finally:
        _loop_cpu[0] += time.thread_time() - cpu0


match._Match.play = _timed_play  # type: ignore[method-assign]


def _load_engine_only() -> tuple[Any, Any]:
    """The branch's engine-only timer and bots' CPU sum, loaded by path so the base
    tree uses them too."""
    path = Path(__file__).resolve().parents[2] / "niwa" / "commands" / "bench_engine_only.py"
    spec = importlib.util.spec_from_file_location("bench_engine_only", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.engine_only, module.bots_cpu


engine_only, bots_cpu = _load_engine_only()


def main() -> None:
    game, players, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    configure_cli_logging()  # warnings only, as `niwa bench referee` runs
    match_s = engine_s = match_cpu = engine_cpu = bots_s = 0.0
    decisions = 0
    with tempfile.TemporaryDirectory() as tmp:
        warm = MatchSpec(game=game, bots=[BotSpec.parse("builtin:random")] * players,
                         seed=seed - 1, in_process=True, sandbox=False)
        play_match(warm)  # imports and first-call costs: not counted
        _loop_cpu[0] = 0.0
        for m in range(n):
            path = Path(tmp) / f"{m}.jsonl"
            cpu0 = time.thread_time()
            outcome = play_match(MatchSpec(
                game=game, bots=[BotSpec.parse("builtin:random")] * players, seed=seed + m,
                in_process=True, sandbox=False, replay_path=path,
            ))
            match_cpu += time.thread_time() - cpu0
            match_s += outcome.wall_s
            engine_s += min(engine_only(path, time.perf_counter) for _ in range(3))
            engine_cpu += min(engine_only(path, time.thread_time) for _ in range(3))
            bots_s += bots_cpu(path)
            decisions += outcome.decisions
    print(json.dumps({
        "game": game, "players": players, "matches": n, "decisions": decisions,
        "referee_cpu_us": round((match_cpu - engine_cpu) / decisions * 1e6, 1),
        "loop_cpu_us": round((_loop_cpu[0] - engine_cpu) / decisions * 1e6, 1),
        "loop_cpu_minus_bots_us": round((_loop_cpu[0] - engine_cpu - bots_s) / decisions * 1e6, 1),
        "bots_cpu_us": round(bots_s / decisions * 1e6, 1),
        "referee_wall_us": round((match_s - engine_s) / decisions * 1e6, 1),
        "engine_cpu_us": round(engine_cpu / decisions * 1e6, 1),
        "load": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
