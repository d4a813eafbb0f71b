"""Training a learned value (niwa.bots.learned): positions from self-play of the
built-in search, and a small network fitted to their final places, with numpy only.

Self-play: every seat is ``builtin:mcts``'s search (``niwa.bots.search.ISMCTS`` with the
game's heuristic) at a fixed number of iterations per decision, so a game is a function
of its seed. At each decision, every seat's input row is kept (niwa.bots.learned.Inputs)
and, when the game ends, labelled with that seat's reward (1 first, 0 last). The player
count cycles through the game's counts of two seats or more.

Fitting: one hidden tanh layer, sigmoid output, squared error, Adam on minibatches, a
tenth of the games held out. The held-out error is reported next to that of the
heuristic value alone, the evaluation the network replaces.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from niwa.bots.learned import Inputs, Network, logit
from niwa.bots.search import ISMCTS, SearchLimits, terminal_values
from niwa.engine import CHANCE, Game

#: a game's positions: input rows (positions x inputs) and their labels
Positions = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


def player_counts(game: Game) -> list[int]:
    info = game.info
    return list(range(max(2, info.min_players), info.max_players + 1))


#: Decisions after which a self-play game is given up: the rules of some games let two
#: players go on for ever (Bonsai: both Cultivate and place nothing, so the deck never
#: runs out), and a search that finds nothing better than that does just that.
MAX_DECISIONS = 5_000


def selfplay(game: Game, players: int, seed: int, iterations: int) -> Positions:
    """One self-play game's positions: every seat's row at every decision, labelled;
    none for a game that passed :data:`MAX_DECISIONS` without ending (no final places
    to label them by)."""
    heuristic = game.heuristic()
    search = ISMCTS(game, heuristic)
    search.rng = random.Random(f"value/{seed}/search")
    chance = random.Random(f"value/{seed}/chance")
    inputs = Inputs(game, players)
    state = game.new_game(players)
    rows: list[npt.NDArray[np.float32]] = []
    limits = SearchLimits(iterations=iterations, seconds=None)
    while not state.is_over():
        movers = state.to_move()
        if movers == (CHANCE,):
            state.apply({CHANCE: state.sample_chance(chance)})
            continue
        if len(rows) >= MAX_DECISIONS:
            return np.zeros((0, inputs.size), np.float32), np.zeros(0, np.float32)
        rows.append(inputs.rows(state))
        joint = {}
        for seat in movers:
            legal = state.legal_actions(seat)
            if len(legal) == 1:
                joint[seat] = legal[0]
            else:
                index, _ = search.choose(state.observe(seat), seat, legal, limits)
                joint[seat] = legal[index]
        state.apply(joint)
    values = terminal_values(state.result())
    x = np.concatenate(rows).astype(np.float32) if rows else np.zeros((0, inputs.size), np.float32)
    y = np.tile(np.asarray(values, np.float32), len(rows))
    return x, y


@dataclass(frozen=True)
class Fit:
    network: Network
    train_mse: float
    held_out_mse: float
    #: the same held-out positions valued by the game's heuristic alone
    held_out_mse_heuristic: float
    positions: int


def fit(
    games: Sequence[Positions], hidden: int, epochs: int, seed: int, batch: int = 256
) -> Fit:
    """Fit the network to ``games``' positions. The last tenth of the games (at least
    one when there are two or more) is held out; the weights of the epoch with the
    least held-out error are kept, the heuristic itself (epoch 0) included."""
    held = max(1, len(games) // 10) if len(games) >= 2 else 0
    train, test = games[: len(games) - held], games[len(games) - held :]
    x = np.concatenate([g[0] for g in train]).astype(np.float64)
    y = np.concatenate([g[1] for g in train]).astype(np.float64)
    if not len(x):
        raise ValueError("no positions to fit: play more games")
    xt = np.concatenate([g[0] for g in test]).astype(np.float64) if test else x[:0]
    yt = np.concatenate([g[1] for g in test]).astype(np.float64) if test else y[:0]
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std < 1e-6] = 1.0
    z, base = (x - mean) / std, logit(x[:, -1])
    inputs = x.shape[1]
    # w1, b1, w2, (a, c): from the heuristic itself
    params = [
        rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)),
        np.zeros(hidden),
        np.zeros(hidden),
        np.array([1.0, 0.0]),
    ]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    rate, beta1, beta2, eps, step = 1e-3, 0.9, 0.999, 1e-8, 0

    def network() -> Network:
        w1, b1, w2, ac = params
        return Network(mean, std, w1.copy(), b1.copy(), w2.copy(), float(ac[0]), float(ac[1]))

    def held_out(net: Network) -> float:
        return float(np.mean((net(xt) - yt) ** 2)) if len(xt) else float("nan")

    best = network()
    best_error = held_out(best)
    for _ in range(epochs):
        order = rng.permutation(len(z))
        for start in range(0, len(z), batch):
            rows = order[start : start + batch]
            w1, b1, w2, ac = params
            h = np.tanh(z[rows] @ w1 + b1)
            out = 1.0 / (1.0 + np.exp(-(ac[0] * base[rows] + ac[1] + h @ w2)))
            d_out = 2.0 * (out - y[rows]) * out * (1.0 - out) / len(rows)
            d_h = np.outer(d_out, w2) * (1.0 - h * h)
            grads = [
                z[rows].T @ d_h, d_h.sum(axis=0), h.T @ d_out,
                np.array([d_out @ base[rows], d_out.sum()]),
            ]  # fmt: skip
            step += 1
            for i, g in enumerate(grads):
                moments[i] = beta1 * moments[i] + (1 - beta1) * g
                squares[i] = beta2 * squares[i] + (1 - beta2) * g * g
                m_hat = moments[i] / (1 - beta1**step)
                v_hat = squares[i] / (1 - beta2**step)
                params[i] = params[i] - rate * m_hat / (np.sqrt(v_hat) + eps)
        error = held_out(network())
        if not len(xt) or error < best_error:
            best, best_error = network(), error
    heuristic_error = float(np.mean((xt[:, -1] - yt) ** 2)) if len(xt) else float("nan")
    train_error = float(np.mean((best(x) - y) ** 2))
    return Fit(best, train_error, best_error, heuristic_error, len(x))
