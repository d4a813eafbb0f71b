"""Train a small policy for a niwa game against random play, on CPU, with numpy only.

The policy is linear softmax over the game's fixed action space, masked to the legal
actions, on the adapter's hashed observation features; it learns by REINFORCE with a
running-mean baseline from the final reward (+1 a win, -1 a loss with two seats). The
opponents pick uniformly among the legal actions, as ``builtin:random`` does. The
learner's seat rotates from game to game.

    python examples/rl-training/train.py --seed 0      # Blossom, 30 x 200 games

prints one row per iteration: the learner's win rate in that iteration's games (all
played with the policy as it was at the start of the iteration, sampling its moves),
then the win rates of the untrained (uniform) and the trained policy over the same
fresh deals. A run is a function of its seed. The defaults (30 x 200 games, learning
rate 0.003) are the run measured over five seeds in examples/rl-training/README.md;
the former 20 x 40 games at 0.01 left the result more to chance.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import numpy.typing as npt

from niwa.adapters import features
from niwa.adapters.pettingzoo import NiwaEnv, env

Vector = npt.NDArray[np.float64]


class LinearPolicy:
    def __init__(self, actions: int, features: int) -> None:
        self.w = np.zeros((actions, features))
        self.b = np.zeros(actions)

    def probabilities(self, x: Vector, legal: npt.NDArray[np.intp]) -> Vector:
        logits = self.w[legal] @ x + self.b[legal]
        e = np.exp(logits - logits.max())
        probabilities: Vector = e / e.sum()
        return probabilities


def squash(observation: npt.NDArray[np.float32]) -> Vector:
    """Counts and scores vary a lot in size: a signed log keeps the steps stable."""
    x = observation.astype(np.float64)
    return np.sign(x) * np.log1p(np.abs(x))


Step = tuple[Vector, npt.NDArray[np.intp], int]  # features, legal actions, choice


def play(
    e: NiwaEnv, policy: LinearPolicy, learner: int, seed: int, rng: np.random.Generator
) -> tuple[float, list[Step]]:
    """One game; the learner's final reward and its decisions."""
    e.reset(seed=seed)
    me = e.possible_agents[learner]
    steps: list[Step] = []
    reward = 0.0
    for agent in e.agent_iter():
        obs, r, done, truncated, _ = e.last()
        if done or truncated:
            if agent == me:
                reward = r
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if agent == me:
            x = squash(obs["observation"])
            k = int(rng.choice(len(legal), p=policy.probabilities(x, legal)))
            steps.append((x, legal, k))
            e.step(int(legal[k]))
        else:
            e.step(int(rng.choice(legal)))
    return reward, steps


def update(policy: LinearPolicy, steps: list[Step], advantage: float, lr: float) -> None:
    """REINFORCE: move each choice's log-probability along the advantage."""
    for x, legal, k in steps:
        grad = -policy.probabilities(x, legal)
        grad[k] += 1.0
        policy.w[legal] += lr * advantage * np.outer(grad, x)
        policy.b[legal] += lr * advantage * grad


def evaluate(e: NiwaEnv, policy: LinearPolicy, games: int, seed: int) -> float:
    """The win rate over `games` fresh games: the deals and the moves come from streams of
    their own, so every policy evaluated with one seed meets the same deals."""
    deals = np.random.default_rng([seed, 1]).integers(2**31, size=games)
    rng = np.random.default_rng([seed, 2])
    players = len(e.possible_agents)
    wins = sum(play(e, policy, g % players, int(deals[g]), rng)[0] > 0 for g in range(games))
    return wins / games


#: Bump when the saved file's keys or meaning change.
POLICY_FORMAT = 1


def save(path: str, policy: LinearPolicy, e: NiwaEnv, args: argparse.Namespace) -> None:
    """Weights plus everything a bot needs to check it sees the same features and actions."""
    meta = {
        "format": POLICY_FORMAT,
        "game": args.game,
        "players": args.players,
        "encoder": features.ENCODER_NAME,
        "encoder_version": features.ENCODER_VERSION,
        "features": e.observation_size,
        "actions": len(e.space.actions),
        "action_values": [str(v) for v in e.space.actions.values],
        "seed": args.seed,
        "command": " ".join(sys.argv),
    }
    np.savez(path, w=policy.w, b=policy.b, meta=np.array(json.dumps(meta)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="blossom")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--games", type=int, default=200, help="games per iteration")
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--seed", type=int, default=0, help="the whole run follows from it")
    parser.add_argument(
        "--eval-games", type=int, default=500,
        help="games, on the same deals, for the untrained and the trained policy at the end"
        " (0: none)",
    )
    parser.add_argument(
        "--save", metavar="POLICY.npz",
        help="keep the trained weights and what made them (format: docs/rl.md)",
    )
    args = parser.parse_args()

    e = env(args.game, args.players)
    policy = LinearPolicy(len(e.space.actions), e.observation_size)
    rng = np.random.default_rng(args.seed)
    baseline = 0.0
    untrained = evaluate(e, policy, args.eval_games, args.seed) if args.eval_games > 0 else 0.0
    start = time.process_time()
    print(f"{args.game}, {args.players} players, seed {args.seed}: the learner against random play")
    print("| iteration | games | win rate | mean reward | CPU s |")
    print("|---:|---:|---:|---:|---:|")
    for it in range(1, args.iterations + 1):
        played = []
        for g in range(args.games):
            seed = int(rng.integers(2**31))
            reward, steps = play(e, policy, g % args.players, seed, rng)
            played.append((reward, steps))
        for reward, steps in played:
            update(policy, steps, reward - baseline, args.lr)
            baseline += 0.05 * (reward - baseline)
        rewards = [r for r, _ in played]
        wins = sum(r > 0 for r in rewards) / len(rewards)
        cpu = time.process_time() - start
        print(f"| {it} | {args.games} | {wins:.0%} | {np.mean(rewards):+.2f} | {cpu:.0f} |")
    if args.save:
        save(args.save, policy, e, args)
        print(f"saved the policy to {args.save}")
    if args.eval_games <= 0:
        return
    trained = evaluate(e, policy, args.eval_games, args.seed)
    # A binomial 95 % half-width: how far apart the two rates must be to mean something.
    spread = 1.96 * np.sqrt(trained * (1 - trained) / max(args.eval_games, 1))
    print(
        f"win rate over {args.eval_games} evaluation games (the same deals for both):"
        f" untrained {untrained:.1%}, trained {trained:.1%} ± {spread:.1%}"
    )


if __name__ == "__main__":
    main()
