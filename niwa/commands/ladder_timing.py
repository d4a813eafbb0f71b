"""Time the ladder's store operations on a store filled with synthetic matches.

Run by ``niwa bench ladder --synthetic`` as ``python -c <this file's text> DB GAME
ROUNDS PARTS`` in a fresh process whose ``PYTHONPATH`` picks the niwa to measure, so
the same script times this checkout and an older one (a git worktree) against copies
of one store. It uses only store calls that both have, and prints one JSON object.

Parts (comma-separated): ``schedule`` (the runner queues one match: bots, counts,
pairing, seats), ``claim`` (the oldest queued match to running), ``commit`` (a
finished match with its results and rating update), ``leaderboard`` (one game's board
by the ladder's default rating model: the first read in the process, after the
commits, fits from nothing; then reads again with nothing new; then, round by round,
one more rated match committed (not timed) and the board read after it:
``leaderboard_after_commit``), ``pairwise`` (the same three with the store set to the
pairwise fit, named ``pairwise_leaderboard_*``). A niwa from before the rating choice
has only the pairwise board: its ``leaderboard`` is recorded under the pairwise names.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from niwa import ladder
from niwa.ladder import logs
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import Finished, Match, SeatResult, Store
from niwa.referee.failures import SeatStatus


class Timings:
    """Each part's wall and CPU seconds (this process's CPU: steadier than wall time
    when other work shares the cores), operation by operation."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def time(self, part: str, action: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        value = action()
        self.wall.setdefault(part, []).append(time.perf_counter() - wall)
        self.cpu.setdefault(part, []).append(time.process_time() - cpu)
        return value


def queue_of(store: Store) -> Any:
    """The store's matches part, or, in a niwa from before the store was split by
    concern, the store itself (there ``matches`` is a method)."""
    part = store.matches
    return store if callable(part) else part


def finish(store: Store, match: Match, rng: random.Random, replay: bytes | None) -> None:
    """Commit ``match`` as finished, its seats placed in a random order; with its
    ``replay`` where the niwa measured keeps replays in the store (as its runner does)."""
    places = list(range(len(match.seats)))
    rng.shuffle(places)
    results = tuple(
        SeatResult(seat, bot, place, float(-place), SeatStatus.OK)
        for seat, (bot, place) in enumerate(zip(match.seats, places, strict=True))
    )
    finished = Finished(results, 40, 0.1, "0" * 64)
    if replay is None:
        queue_of(store).finish_match(match.id, finished)
    else:
        queue_of(store).finish_match(match.id, finished, replay)  # type: ignore[call-arg, unused-ignore]


def synthetic_replay(rng: random.Random, decisions: int = 150) -> bytes:
    """About 25 kB of JSON lines, as compressible as a blossom replay."""
    lines = [json.dumps({"kind": "header", "game": "blossom", "seed": rng.getrandbits(62)})]
    for step in range(decisions):
        move = {"seat": step % 2, "action": rng.randrange(64), "wall_ms": rng.random()}
        lines.append(json.dumps({"kind": "decision", "step": step, "moves": [move],
                                 "state": [rng.randrange(3) for _ in range(16)]}))
    return ("\n".join(lines) + "\n").encode()


def time_board(
    store: Store, game: str, rounds: int, rng: random.Random, replay: bytes | None,
    timings: Timings, prefix: str,
) -> None:
    """The board's first read, reads again, and reads after each of ``rounds`` commits."""
    timings.time(f"{prefix}leaderboard_first", lambda: Reads(store).leaderboards(game))
    for _ in range(max(rounds - 1, 1)):
        timings.time(f"{prefix}leaderboard_again", lambda: Reads(store).leaderboards(game))
    for _ in range(rounds):
        match = queue_of(store).claim_next()
        if match is None:
            break
        finish(store, match, rng, replay)
        timings.time(f"{prefix}leaderboard_after_commit",
                     lambda: Reads(store).leaderboards(game))  # fmt: skip


def main(argv: list[str]) -> None:
    db, game, rounds, parts = argv[0], argv[1], int(argv[2]), set(argv[3].split(","))
    logs.configure("error")
    rng = random.Random(0)
    out: dict[str, Any] = {"code": os.path.dirname(os.path.dirname(ladder.__file__ or ""))}
    timings = Timings()
    store = timings.time("open", lambda: Store.open(db, Path.cwd()))
    # A niwa that keeps replays in the store commits one with each match, as its runner.
    replay = synthetic_replay(rng) if "replay" in inspect.signature(
        queue_of(store).finish_match).parameters else None
    runner = Runner(Settings(db, games=(game,), seed=0, log_level="error"))
    for _ in range(rounds):
        if "schedule" in parts:
            timings.time("schedule", lambda: runner._schedule_game(store, game))
    claimed = []
    for _ in range(rounds):
        if "claim" in parts or "commit" in parts:
            claimed.append(timings.time("claim", queue_of(store).claim_next))
    for match in claimed:
        if "commit" in parts and match is not None:
            timings.time("commit", partial(finish, store, match, rng, replay))
    chooses = hasattr(store.ratings, "set_rating")  # a niwa with a rating choice
    if "leaderboard" in parts:
        time_board(store, game, rounds, rng, replay, timings, "" if chooses else "pairwise_")
        if chooses:
            out["refits"] = store.ratings.refits(game)
    if "pairwise" in parts and chooses:
        store.ratings.set_rating("pairwise")
        time_board(store, game, rounds, rng, replay, timings, "pairwise_")
    elif "pairwise" in parts and "leaderboard" not in parts:
        time_board(store, game, rounds, rng, replay, timings, "pairwise_")
    store.close()
    out["open_s"] = timings.wall.pop("open")[0]
    for prefix in ("", "pairwise_"):
        if f"{prefix}leaderboard_first" in timings.wall:
            out[f"{prefix}leaderboard_first_s"] = timings.wall.pop(f"{prefix}leaderboard_first")[0]
    out["times_s"] = timings.wall
    out["cpu_s"] = timings.cpu
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
