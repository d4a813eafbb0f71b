"""What the adapters cost: CPU microseconds per decision of random play, the engine
alone against the same games through the PettingZoo env and the OpenSpiel state,
alternating game by game in one process (figures: docs/benchmarks.md).

    python examples/rl-training/overhead.py --games 20
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

import numpy as np
import pyspiel

import niwa.adapters.openspiel
from niwa import engine
from niwa.adapters.pettingzoo import NiwaEnv, env
from niwa.engine.testing import random_joint


def engine_game(game: engine.Game, players: int, seed: int) -> int:
    rng = random.Random(seed)
    state = game.new_game(players)
    n = 0
    while not state.is_over():
        joint = random_joint(state, rng)
        state.apply(joint)
        n += 0 if engine.CHANCE in joint else len(joint)
    return n


def pettingzoo_game(e: NiwaEnv, seed: int) -> int:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for _ in e.agent_iter():
        obs, _, done, truncated, _ = e.last()
        if done or truncated:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
    return n


def openspiel_game(game: pyspiel.Game, seed: int) -> int:
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    n = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.is_simultaneous_node():
            players = range(game.num_players())
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in players])
            n += game.num_players()
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per game and way")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("| game | engine µs/decision | PettingZoo | ratio | OpenSpiel | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in engine.games():
        game = engine.load(name)
        e = env(name, args.players)
        spiel = pyspiel.load_game(
            f"{niwa.adapters.openspiel.short_name(name)}(players={args.players})"
        )
        ways: dict[str, Callable[[int], int]] = {
            "engine": lambda s, g=game: engine_game(g, args.players, s),
            "pettingzoo": lambda s, e=e: pettingzoo_game(e, s),
            "openspiel": lambda s, g=spiel: openspiel_game(g, s),
        }
        for play in ways.values():  # warm-up: the engines build their caches on first use
            play(2**31 - 1)
        cpu = dict.fromkeys(ways, 0.0)
        decisions = dict.fromkeys(ways, 0)
        for seed in range(args.games):
            for way, play in ways.items():
                start = time.process_time()
                decisions[way] += play(seed)
                cpu[way] += time.process_time() - start
        us = {w: 1e6 * cpu[w] / decisions[w] for w in ways}
        b, pz, os_ = us["engine"], us["pettingzoo"], us["openspiel"]
        print(f"| {name} | {b:.0f} | {pz:.0f} | {pz / b:.1f} | {os_:.0f} | {os_ / b:.1f} |")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
