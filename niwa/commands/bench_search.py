"""``niwa bench search``: how many ISMCTS iterations the built-in search makes per second.

For each game and player count, a seeded random playout stops at a few positions (spread
over the match, chance and forced moves skipped); at each, the search of ``builtin:mcts``
(``bots.search.ISMCTS`` with the game's heuristic) thinks for ``--seconds`` of wall
time, as the bot does with ``builtin:mcts?seconds=S``. The figure is iterations per
second of that search, median over the positions, with the load average printed: wall
time, so a busy machine lowers it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

import engine
from bots import heuristics
from bots.search import ISMCTS, SearchLimits
from engine import CHANCE, State
from engine.testing.checks import playout
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json


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
    p.add_argument("--seed", type=int, default=0, help="seed of the playouts (default 0)")
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


def search_rate(game: engine.Game, name: str, at: Position, seconds: float, seed: int) -> float:
    """Iterations per second of one search of ``seconds`` at one position."""
    search = ISMCTS(game, heuristics.for_game(name), rng=random.Random(seed))
    legal = at.state.legal_actions(at.seat)
    started = time.perf_counter()
    search.choose(at.state.observe(at.seat), at.seat, legal, SearchLimits(seconds=seconds))
    return search.iterations / (time.perf_counter() - started)


def run(args: argparse.Namespace) -> int:
    names = args.games or engine.games()
    for name in names:
        if name not in engine.games():
            raise UsageError(f"no game {name!r}; games: {', '.join(engine.games())}")
    if args.seconds <= 0 or args.positions < 1:
        raise UsageError("--seconds must be above 0 and --positions at least 1")
    out = text_out(args)
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} CPUs; builtin:mcts search, "
          f"{args.seconds:g} s per position (wall clock)", file=out)
    print(f"{'game':<10} {'players':>7} {'positions':>9} {'iterations/s':>13} "
          f"{'min':>9} {'max':>9}", file=out, flush=True)
    rows: list[dict[str, Any]] = []
    for name in names:
        game = engine.load(name)
        counts = args.players or range(game.info.min_players, game.info.max_players + 1)
        for players in counts:
            if not game.info.min_players <= players <= game.info.max_players:
                raise UsageError(f"{name} is played by {game.info.min_players}-"
                                 f"{game.info.max_players} players")
            found = positions(game, players, args.positions, args.seed)
            rates = [search_rate(game, name, at, args.seconds, args.seed + i)
                     for i, at in enumerate(found)]
            if not rates:
                continue
            median = statistics.median(rates)
            print(f"{name:<10} {players:>7} {len(rates):>9} {median:>13.0f} "
                  f"{min(rates):>9.0f} {max(rates):>9.0f}", file=out, flush=True)
            rows.append({"game": name, "players": players, "positions": len(rates),
                         "iterations_per_s": median, "min": min(rates), "max": max(rates)})
    end_load = os.getloadavg()[0]
    print(f"load average at the end: {end_load:.2f}", file=out)
    write_json(args, {"bench": "search", "seconds": args.seconds, "load_average": load,
                      "load_average_end": end_load, "rows": rows})
    return 0
