"""``niwa bench rl``: environment steps per second per core, with observation encoding,
of the vectorised environment (niwa.adapters.vector) next to the one-game PettingZoo AEC
loop (niwa.adapters.pettingzoo), measured in the same run.

Both sides play uniformly random legal moves (the AEC side from its action mask, the
vector side from ``VectorEnv.legal``, which skips scanning rows as wide as Bonsai's
action space: that scan is a policy's cost, not the env's), and every
agent step encodes the observations the env hands out (the vector env's uses the game's
``feature_encoder`` hook, the AEC env the generic hashed one it always uses). A rate is
agent steps (one seat's decision) per second of this process's CPU time: one core. The
figure is the median of ``--runs``; the load average is printed at the start and end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numpy as np

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json

#: The goals: the vector env against the one-game loop, and per core.
GOAL_RATIO = 5.0
GOAL_STEPS_PER_S = 30_000.0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "rl",
        help="agent steps per second per core of the vectorised RL environment, next to "
        "the one-game PettingZoo loop",
        description="Plays random legal moves in the vectorised environment and in the "
        "one-game PettingZoo AEC environment of each game, observations encoded, and "
        "prints agent steps per CPU second of each and their ratio.",
    )
    p.add_argument("games", nargs="*", metavar="GAME", help="games (default: every game)")
    p.add_argument("--players", type=int,
                   help="player count (default: 2, or the game's nearest count)")
    p.add_argument("--batch", type=int, default=64,
                   help="games the vector environment runs at once (default 64)")
    p.add_argument("--seconds", type=float, default=2.0,
                   help="CPU seconds per measurement (default 2)")
    p.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and moves")
    add_json_option(p)
    p.set_defaults(run=run)


def players_for(game: engine.Game, asked: int | None) -> int:
    info = game.info
    want = 2 if asked is None else asked
    if asked is not None:
        info.validate(asked, None)
    return min(max(want, info.min_players), info.max_players)


def aec_rate(name: str, players: int, seconds: float, seed: int) -> float:
    """Agent steps per CPU second of the one-game PettingZoo loop."""
    from niwa.adapters.pettingzoo import env

    e = env(name, players)
    rng = np.random.default_rng(seed)
    steps = 0
    started = time.process_time()
    game = 0
    while time.process_time() - started < seconds:
        e.reset(seed=seed + game)
        game += 1
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.process_time() - started)


def vector_rate(name: str, players: int, batch: int, seconds: float, seed: int) -> float:
    """Agent steps per CPU second of the vectorised environment."""
    from niwa.adapters.vector import vector_env

    v = vector_env(name, players, games=batch)
    rng = np.random.default_rng(seed)
    _obs, infos = v.reset(seed=seed)
    actions = {a: np.zeros(batch, np.int64) for a in v.possible_agents}
    started = time.process_time()
    first = v.agent_steps
    while time.process_time() - started < seconds:
        for agent, chosen in actions.items():
            for g in np.flatnonzero(infos[agent]["to_move"]):
                legal = v.legal(agent, int(g))
                chosen[g] = legal[rng.integers(len(legal))]
        _obs, _rewards, _term, _trunc, infos = v.step(actions)
    return (v.agent_steps - first) / (time.process_time() - started)


def run(args: argparse.Namespace) -> int:
    if args.seconds <= 0 or args.runs < 1 or args.batch < 1:
        raise UsageError("--seconds must be above 0, --runs and --batch at least 1")
    names = args.games or engine.games()
    for name in names:  # refuse an unknown game or count before measuring anything
        if name not in engine.games():
            raise UsageError(f"no game {name!r}; games: {', '.join(engine.games())}")
        try:
            players_for(engine.load(name), args.players)
        except engine.OptionError as e:
            raise UsageError(str(e)) from None
    out = text_out(args)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} "
          f"CPUs; agent steps per CPU second (one core), median of {args.runs} runs of "
          f"{args.seconds:g} s; vector batch {args.batch}", file=out)
    print(f"{'game':<10} {'players':>7} {'encoder':<22} {'one-game':>9} {'vector':>9} "
          f"{'ratio':>6}  goals (x{GOAL_RATIO:g}, {GOAL_STEPS_PER_S:,.0f}/s)", file=out)
    rows = []
    for name in names:
        game = engine.load(name)
        players = players_for(game, args.players)
        aec = statistics.median(
            aec_rate(name, players, args.seconds, args.seed + r) for r in range(args.runs)
        )
        vec = statistics.median(
            vector_rate(name, players, args.batch, args.seconds, args.seed + r)
            for r in range(args.runs)
        )
        from niwa.adapters.features import encoder_for

        version = encoder_for(game, players).version
        ratio = vec / aec
        met = ratio >= GOAL_RATIO and vec >= GOAL_STEPS_PER_S
        print(f"{name:<10} {players:>7} {version:<22} {aec:>9,.0f} {vec:>9,.0f} "
              f"{ratio:>6.2f}  {'met' if met else 'NOT met'}", file=out, flush=True)
        rows.append({"game": name, "players": players, "encoder": version,
                     "one_game_steps_per_s": aec, "vector_steps_per_s": vec,
                     "ratio": ratio, "goals_met": met})
    end = os.getloadavg()[0]
    print(f"load average at the end: {end:.2f}", file=out)
    write_json(args, {"bench": "rl", "batch": args.batch, "seconds": args.seconds,
                      "runs": args.runs, "load_average": load[0], "load_average_end": end,
                      "rows": rows})
    return 0
