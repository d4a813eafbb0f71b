"""``niwa bench engine [GAME]``: random playouts per second, per game and player count."""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import engine
from engine import CHANCE, State
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json


def register(sub: Any) -> None:
    p = sub.add_parser(
        "engine",
        help="random-playout games/s and decisions/s per game and player count",
        description="Plays random games in process (no referee) and reports the median "
        "of several runs. Decisions count every apply(), chance included.",
    )
    p.add_argument("game", nargs="?", help="one registered game (default: all)")
    p.add_argument("--players", type=int, action="append",
                   help="player count (repeatable; default: every count the game allows)")
    p.add_argument("--runs", type=int, default=5, help="runs per case (default 5)")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one run (default 1)")
    p.add_argument("--seed", type=int, default=0, help="first run's seed (default 0)")
    add_json_option(p)
    p.set_defaults(run=run)


def _one_game(state: State, rng: random.Random) -> int:
    decisions = 0
    while True:
        seats = state.to_move()
        if not seats:
            return decisions
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
        decisions += 1


def measure(name: str, players: int, seconds: float, seed: int) -> tuple[float, float]:
    """(games per second, decisions per second) over one run of about ``seconds``."""
    game = engine.load(name)
    rng = random.Random(seed)
    games = decisions = 0
    start = time.perf_counter()
    while True:
        decisions += _one_game(game.new_game(players, {}), rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, decisions / elapsed


def run(args: argparse.Namespace) -> int:
    names = engine.games()
    if args.game is not None:
        if args.game not in names:
            raise UsageError(f"unknown game {args.game!r}; registered games: {', '.join(names)}")
        names = [args.game]
    if args.runs < 1 or args.seconds <= 0:
        raise UsageError("--runs must be at least 1 and --seconds above 0")
    out = text_out(args)
    rows: list[dict[str, Any]] = []
    print(f"{'game':<10} {'players':>7} {'games/s':>10} {'decisions/s':>12} {'dec/game':>9}",
          file=out)
    for name in names:
        info = engine.load(name).info
        counts = args.players or list(range(info.min_players, info.max_players + 1))
        for players in counts:
            if not info.min_players <= players <= info.max_players:
                raise UsageError(f"{name} is played by {info.min_players}-{info.max_players}")
            runs = [measure(name, players, args.seconds, args.seed + r) for r in range(args.runs)]
            gps = statistics.median(g for g, _ in runs)
            dps = statistics.median(d for _, d in runs)
            print(f"{name:<10} {players:>7} {gps:>10.1f} {dps:>12.0f} {dps / gps:>9.1f}",
                  file=out, flush=True)
            rows.append({"game": name, "players": players, "games_per_s": gps,
                         "decisions_per_s": dps, "decisions_per_game": dps / gps})
    write_json(args, {"benchmark": "engine", "runs": args.runs, "seconds": args.seconds,
                      "seed": args.seed, "rows": rows})
    return 0
