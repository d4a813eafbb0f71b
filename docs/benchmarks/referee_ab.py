"""A/B timing of the referee in process, for docs/benchmarks.md (section "Referee").

Run under two code trees that share the public match API, alternating::

    PYTHONPATH=/tmp/base-perf-referee python docs/benchmarks/referee_ab.py GAME PLAYERS N SEED
    PYTHONPATH=.                     python docs/benchmarks/referee_ab.py GAME PLAYERS N SEED

Each run plays N matches of built-in random bots in process with a replay file, then
re-plays every match's recorded moves with the engine alone (to_move, legal_actions
of each seat to move, chance sampling, apply), and prints one JSON line: the referee's
cost per decision outside the engine = (match wall time - engine-only time) / decisions.
Only stable names are used (MatchSpec, play_match, replay.read, engine), so the same
file times the base commit and the branch.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import engine
from referee import replay
from referee.logs import configure_cli_logging
from referee.match import BotSpec, MatchSpec, play_match


def engine_only(path: Path) -> float:
    """Seconds the engine alone needs for the recorded match."""
    r = replay.read(path)
    game = engine.load(r.header.game)
    options = game.info.validate(r.header.players, r.header.options)
    rng = random.Random(0)
    t0 = time.perf_counter()
    state = game.new_game(r.header.players, options)
    for step in r.steps:
        to_move = state.to_move()
        if to_move == (engine.CHANCE,):
            engine.sample_chance(state, rng)
        else:
            for seat in to_move:
                state.legal_actions(seat)
        state.apply(step.joint())
    state.result()
    return time.perf_counter() - t0


def main() -> None:
    game, players, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    configure_cli_logging()  # warnings only, as `niwa bench referee` runs
    match_s = engine_s = 0.0
    decisions = 0
    with tempfile.TemporaryDirectory() as tmp:
        warm = MatchSpec(game=game, bots=[BotSpec.parse("builtin:random")] * players,
                         seed=seed - 1, in_process=True, sandbox=False)
        play_match(warm)  # imports and first-call costs: not counted
        for m in range(n):
            path = Path(tmp) / f"{m}.jsonl"
            outcome = play_match(MatchSpec(
                game=game, bots=[BotSpec.parse("builtin:random")] * players, seed=seed + m,
                in_process=True, sandbox=False, replay_path=path,
            ))
            match_s += outcome.wall_s
            engine_s += min(engine_only(path) for _ in range(3))
            decisions += outcome.decisions
    print(json.dumps({
        "game": game, "players": players, "matches": n, "decisions": decisions,
        "referee_us": (match_s - engine_s) / decisions * 1e6,
        "engine_us": engine_s / decisions * 1e6, "load": os.getloadavg()[0],
    }))


if __name__ == "__main__":
    main()
