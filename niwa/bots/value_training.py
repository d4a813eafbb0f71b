"""Training a learned value (niwa.bots.learned): positions from self-play of the
built-in search, and a small network fitted to their final places and the search's own
values, with numpy only.

Self-play: every seat is ``builtin:mcts``'s search (``niwa.bots.search.ISMCTS`` with the
game's heuristic) at a fixed number of iterations per decision, so a game is a function
of its seed. At each decision, every seat's input row is kept (niwa.bots.learned.Inputs)
with the search's value, and, when the game ends, that seat's reward (1 first, 0 last);
the positions after the other well-searched moves are kept with the search's value of
each (:func:`selfplay`). The player count cycles through the game's counts of two seats
or more.

Fitting: one hidden tanh layer, sigmoid output, squared error, Adam on minibatches, a
tenth of the games held out. The held-out error is reported next to that of the
heuristic value alone, the evaluation the network replaces.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from niwa.bots.learned import Inputs, Network, logit
from niwa.bots.search import ISMCTS, RootView, SearchLimits, terminal_values
from niwa.engine import CHANCE, Action, Game, State

#: a game's positions: input rows (positions x inputs) and their labels
Positions = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


def player_counts(game: Game) -> list[int]:
    info = game.info
    return list(range(max(2, info.min_players), info.max_players + 1))


#: Decisions after which a self-play game is given up: the rules of some games let two
#: players go on for ever (Bonsai: both Cultivate and place nothing, so the deck never
#: runs out), and a search that finds nothing better than that does just that.
MAX_DECISIONS = 5_000


#: A root action's value is kept as a label when the search walked it this many times
#: past its seeding's virtual visits (fewer: mostly the heuristic's own guess).
MIN_VISITS = 8

#: The share of a played position's label that is the search's value by default (the
#: rest is the final reward): the outcome is unbiased but noisy, the search's value the
#: reverse, and it is mostly the heuristic's. Chosen by strength (docs/rl.md).
SEARCH_SHARE = 0.25


@dataclass(frozen=True)
class Played:
    """One self-play game's positions (:func:`selfplay`), one row per seat and position,
    with both labels a row can have; :meth:`labelled` mixes them."""

    x: npt.NDArray[np.float32]
    #: the row's seat's final reward; NaN for a position after a move not played
    outcome: npt.NDArray[np.float32]
    #: the search's value for the row's seat; NaN where there is none
    search: npt.NDArray[np.float32]

    def labelled(self, share: float, columns: npt.NDArray[np.intp] | None = None) -> Positions:
        """Rows and labels: a played position's label is ``share`` of the search's value
        (where there is one) and the rest its final reward; the positions after moves
        not played are labelled by the search's value, and only when ``share`` > 0. With
        ``columns`` (:func:`columns_without`), the rows hold those inputs only."""
        played = ~np.isnan(self.outcome)
        mixed = np.where(
            np.isnan(self.search), self.outcome, share * self.search + (1 - share) * self.outcome
        )
        keep = played | (share > 0)
        y = np.where(played, mixed, self.search)[keep].astype(np.float32)
        if columns is None:
            return self.x[keep], y
        return self.x[np.ix_(np.flatnonzero(keep), columns)], y  # one copy, not two

    def arrays(self) -> dict[str, npt.NDArray[np.float32]]:
        return {"x": self.x, "outcome": self.outcome, "search": self.search}

    @classmethod
    def of(cls, saved: Mapping[str, npt.NDArray[np.float32]]) -> Played:
        """From :meth:`arrays` as saved; a game saved before the search's values were
        kept (``x`` and ``y``, the final rewards) has none."""
        if "outcome" in saved:
            return cls(saved["x"], saved["outcome"], saved["search"])
        y = saved["y"]
        return cls(saved["x"], y, np.full_like(y, np.nan))


def _nothing(size: int) -> Played:
    empty = np.zeros(0, np.float32)
    return Played(np.zeros((0, size), np.float32), empty, empty)


def selfplay(game: Game, players: int, seed: int, iterations: int) -> Played:
    """One self-play game's positions: every seat's row at every decision, with its
    final reward (1 first, 0 last) and, where a seat searched, the search's value of the
    move it chose (in two-player games the other seat's is 1 minus it; where both
    searched at once, the mean of the one's and 1 minus the other's). Each root action
    the search walked at least :data:`MIN_VISITS` times also gives the position right
    after it (with the other seats' chosen moves where several move at once; pending
    chance drawn from a generator of its own), with the search's value of that action
    for the seat (and 1 minus it for the other of two): exactly the positions a search
    or ``builtin:policy`` values, with what a search many times deeper made of them.
    None for a game that passed :data:`MAX_DECISIONS` without ending (no final places
    to label them by)."""
    heuristic = game.heuristic()
    search = ISMCTS(game, heuristic)
    search.rng = random.Random(f"value/{seed}/search")
    chance = random.Random(f"value/{seed}/chance")
    after_chance = random.Random(f"value/{seed}/after")
    inputs = Inputs(game, players)
    state = game.new_game(players)
    rows: list[npt.NDArray[np.float32]] = []
    #: per row block, each seat's search value (None: the outcome alone)
    searched: list[list[float | None]] = []
    after_rows: list[npt.NDArray[np.float32]] = []
    after_labels: list[float] = []
    limits = SearchLimits(iterations=iterations, seconds=None)
    while not state.is_over():
        movers = state.to_move()
        if movers == (CHANCE,):
            state.apply({CHANCE: state.sample_chance(chance)})
            continue
        if len(rows) >= MAX_DECISIONS:
            return _nothing(inputs.size)
        rows.append(inputs.rows(state))
        values: list[float | None] = [None] * players
        joint: dict[int, Action] = {}
        roots: list[tuple[int, list[Action], RootView]] = []
        for seat in movers:
            legal = state.legal_actions(seat)
            if len(legal) == 1:
                joint[seat] = legal[0]
                continue
            index, _ = search.choose(state.observe(seat), seat, legal, limits)
            joint[seat] = legal[index]
            values[seat] = search.root_view.action_values[index]
            roots.append((seat, legal, search.root_view))
        for seat, legal, view in roots:  # the others' moves as they were chosen
            _after_positions(
                state, joint, seat, legal, view, search.prior_visits, inputs, after_chance,
                after_rows, after_labels,
            )
        if players == 2:  # the two values add up to 1, as the rewards do
            first, second = values
            if first is not None and second is not None:  # both searched, at once
                first = (first + 1.0 - second) / 2
            elif second is not None:
                first = 1.0 - second
            values = [first, None if first is None else 1.0 - first]
        searched.append(values)
        state.apply(joint)
    final = terminal_values(state.result())
    if not rows:
        return _nothing(inputs.size)
    after = len(after_labels)
    nan = float("nan")
    return Played(
        x=np.concatenate([*rows, *(r[None] for r in after_rows)]).astype(np.float32),
        outcome=np.asarray([*final * len(rows), *[nan] * after], np.float32),
        search=np.asarray(
            [*(nan if v is None else v for block in searched for v in block), *after_labels],
            np.float32,
        ),
    )


def _after_positions(
    state: State,
    joint: dict[int, Action],
    seat: int,
    legal: list[Action],
    view: RootView,
    prior: int,
    inputs: Inputs,
    rng: random.Random,
    rows: list[npt.NDArray[np.float32]],
    labels: list[float],
) -> None:
    """The positions right after each of ``seat``'s well-searched root actions (with the
    other seats' moves of ``joint``, where they move at once), labelled by the search's
    value of the action for the seat and, with two seats, 1 minus it for the other:
    appended to ``rows`` and ``labels``. A position where the game is over is left out:
    the search values it by its result, not by the network."""
    for action, walked, value in zip(legal, view.visits, view.action_values, strict=True):
        if walked - prior < MIN_VISITS:
            continue
        after = state.clone()
        after.apply({**joint, seat: action})
        while not after.is_over() and after.to_move() == (CHANCE,):
            after.apply({CHANCE: after.sample_chance(rng)})
        if after.is_over():
            continue
        block = inputs.rows(after)
        rows.append(block[seat])
        labels.append(value)
        if inputs.players == 2:
            rows.append(block[1 - seat])
            labels.append(1.0 - value)


@dataclass(frozen=True)
class Fit:
    network: Network
    train_mse: float
    held_out_mse: float
    #: the same held-out positions valued by the game's heuristic alone
    held_out_mse_heuristic: float
    positions: int


def columns_without(
    groups: Mapping[str, tuple[tuple[int, int], ...]], names: Sequence[str], inputs: int
) -> npt.NDArray[np.intp] | None:
    """The input columns left when the encoder's ``groups`` called ``names`` are left
    out (None: all of them); the heuristic's value, the last input, always stays.
    ValueError naming the groups there are for a name that is not one."""
    if not names:
        return None
    keep = np.ones(inputs, bool)
    for name in names:
        if name not in groups:
            there = ", ".join(sorted(groups)) or "none"
            raise ValueError(f"no feature group {name!r}; this game's groups: {there}")
        for start, stop in groups[name]:
            keep[start:stop] = False
    keep[-1] = True
    return np.flatnonzero(keep)


def fit(
    games: Sequence[Positions], hidden: int, epochs: int, seed: int, batch: int = 256
) -> Fit:
    """Fit the network to ``games``' positions. The last tenth of the games (at least
    one when there are two or more) is held out; the weights of the epoch with the
    least held-out error are kept, the heuristic itself (epoch 0) included. Positions
    labelled with ``columns`` (:meth:`Played.labelled`) give a network reading those
    columns only: :func:`widened` makes it one that reads whole rows."""
    held = max(1, len(games) // 10) if len(games) >= 2 else 0
    train, test = games[: len(games) - held], games[len(games) - held :]
    # float32 throughout the positions (Miyabi's 1,271 inputs over a million rows are
    # 5 GB so); the weights and each minibatch's arithmetic are float64
    x = np.concatenate([g[0] for g in train]).astype(np.float32, copy=False)
    y = np.concatenate([g[1] for g in train]).astype(np.float64)
    if not len(x):
        raise ValueError("no positions to fit: play more games")
    xt = np.concatenate([g[0] for g in test]).astype(np.float32, copy=False) if test else x[:0]
    yt = np.concatenate([g[1] for g in test]).astype(np.float64) if test else y[:0]
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0, dtype=np.float64)
    std = x.std(axis=0, dtype=np.float64)
    std[std < 1e-6] = 1.0
    z = x - mean.astype(np.float32)  # standardised in place of a float64 copy
    z /= std.astype(np.float32)
    base = logit(x[:, -1])
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
        return _squared_error(net, xt, yt)

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
    train_error = _squared_error(best, x, y)
    return Fit(best, train_error, best_error, heuristic_error, len(x))


def widened(net: Network, columns: npt.NDArray[np.intp] | None, inputs: int) -> Network:
    """``net``, which reads ``columns`` of rows of ``inputs`` inputs, as a network
    reading whole rows: the other inputs standardised by nothing and weighted by zero
    (None: ``net`` itself, which reads them all)."""
    if columns is None:
        return net
    mean, std, w1 = np.zeros(inputs), np.ones(inputs), np.zeros((inputs, net.w1.shape[1]))
    mean[columns], std[columns], w1[columns] = net.mean, net.std, net.w1
    return replace(net, mean=mean, std=std, w1=w1)


def _squared_error(
    net: Network, x: npt.NDArray[np.float32], y: npt.NDArray[np.float64], chunk: int = 65_536
) -> float:
    """The network's mean squared error on ``x``, ``y``, a chunk of rows at a time (its
    float64 arithmetic on all rows at once would double the positions' memory)."""
    if not len(x):
        return float("nan")
    total = sum(
        float(np.sum((net(x[i : i + chunk]) - y[i : i + chunk]) ** 2))
        for i in range(0, len(x), chunk)
    )
    return total / len(x)
