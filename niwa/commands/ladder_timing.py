"""Time the ladder's store operations on a store filled with synthetic matches.

Run by ``niwa bench ladder --synthetic`` as ``python -c <this file's text> DB GAME
ROUNDS PARTS`` in a fresh process whose ``PYTHONPATH`` picks the niwa to measure, so
the same script times this checkout and an older one (a git worktree) against copies
of one store. It uses only store calls that both have, and prints one JSON object.

Parts (comma-separated): ``schedule`` (the runner queues one match: bots, counts,
pairing, seats), ``claim`` (the oldest queued match to running), ``commit`` (a
finished match with its results and rating update), ``leaderboard`` (one game's board:
the first read after a commit refits, the others are read again with nothing new).
"""

from __future__ import annotations

import inspect
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ladder
from ladder import logs
from ladder.reads import Reads
from ladder.runner import Runner, Settings
from ladder.store import Finished, SeatResult, Store


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def synthetic_replay(rng: random.Random, decisions: int = 150) -> bytes:
    """About 25 kB of JSON lines, as compressible as a blossom replay."""
    lines = [json.dumps({"kind": "header", "game": "blossom", "seed": rng.getrandbits(62)})]
    for step in range(decisions):
        move = {"seat": step % 2, "action": rng.randrange(64), "wall_ms": rng.random()}
        lines.append(json.dumps({"kind": "decision", "step": step, "moves": [move],
                                 "state": [rng.randrange(3) for _ in range(16)]}))
    return ("\n".join(lines) + "\n").encode()


def main(argv: list[str]) -> None:
    db, game, rounds, parts = argv[0], argv[1], int(argv[2]), set(argv[3].split(","))
    logs.configure("error")
    rng = random.Random(0)
    out: dict[str, Any] = {"code": os.path.dirname(os.path.dirname(ladder.__file__ or ""))}
    out["open_s"], store = timed(lambda: Store.open(db, Path.cwd()))
    # A niwa that keeps replays in the store commits one with each match, as its runner.
    keeps = "replay" in inspect.signature(store.finish_match).parameters
    replay = synthetic_replay(rng)
    runner = Runner(Settings(db, games=(game,), seed=0, log_level="error"))
    times: dict[str, list[float]] = {part: [] for part in ("schedule", "claim", "commit")}
    for _ in range(rounds):
        if "schedule" in parts:
            times["schedule"].append(timed(lambda: runner._schedule_game(store, game))[0])
    claimed = []
    for _ in range(rounds):
        if "claim" in parts or "commit" in parts:
            seconds, match = timed(store.claim_next)
            times["claim"].append(seconds)
            claimed.append(match)
    for match in claimed:
        if "commit" in parts and match is not None:
            places = list(range(len(match.seats)))
            rng.shuffle(places)
            results = tuple(
                SeatResult(seat, bot, place, float(-place), "ok")
                for seat, (bot, place) in enumerate(zip(match.seats, places, strict=True))
            )
            finished = Finished(results, 40, 0.1, "0" * 64)
            start = time.perf_counter()
            if keeps:
                store.finish_match(match.id, finished, replay)  # type: ignore[call-arg, unused-ignore]
            else:
                store.finish_match(match.id, finished)
            times["commit"].append(time.perf_counter() - start)
    if "leaderboard" in parts:
        board: list[float] = []
        for _ in range(max(rounds, 2)):
            board.append(timed(lambda: Reads(store).leaderboards(game))[0])
        out["leaderboard_first_s"] = board[0]
        times["leaderboard_again"] = board[1:]
    store.close()
    out["times_s"] = {part: values for part, values in times.items() if values}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
