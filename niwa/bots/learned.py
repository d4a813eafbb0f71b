"""Learned position values: a small network per game, trained by ``niwa train value``
on positions of ``builtin:mcts`` self-play labelled by their final places, and used as
the leaf evaluation of ``builtin:mcts?eval=learned`` and by ``builtin:policy``.

The network reads, for one seat, the game's feature encoding of what that seat sees
(``Game.feature_encoder``, its ``write_state`` fast path where there is one) and the
game's own heuristic value for that seat, standardised by the training set's mean and
spread; one hidden layer of tanh units whose output corrects the heuristic's value on
the logit scale; a sigmoid output, the predicted reward in [0, 1] (1 first place, 0
last: :func:`niwa.bots.search.terminal_values`). It starts as the heuristic and learns
where, by phase and position, the hand-written evaluation is wrong.

The weights are one ``.npz`` file (format :data:`FORMAT`) with their metadata inside and,
beside it, a provenance file ``GAME.json``: the command, seed, games, positions and CPU
time that made them, and the file's SHA-256. niwa ships one per built-in game as
package data (``niwa/bots/weights/``); ``NIWA_VALUE_DIR`` names a folder to read instead.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from niwa import engine
from niwa.engine.api import Evaluation, FeatureEncoder, Game, State
from niwa.errors import BotError

FORMAT = "niwa-value/1"
#: Where the built-in games' weights are shipped (package data).
PACKAGE = "niwa.bots.weights"

Array = npt.NDArray[np.float64]


class NoLearnedValue(BotError, LookupError):
    """No weights for that game, or weights made for other features."""


#: heuristic values are clipped this far inside (0, 1) before their logit is taken
EDGE = 1e-3


def logit(p: npt.NDArray[np.floating[Any]]) -> Array:
    q = np.clip(p, EDGE, 1.0 - EDGE)
    out: Array = np.log(q / (1.0 - q))
    return out


@dataclass(frozen=True)
class Network:
    """A correction to the heuristic: ``sigmoid(a * logit(h) + c + w2 · tanh(w1 · (x -
    mean) / std + b1))``, ``h`` the heuristic's value (the last input). Trained from
    a = 1, c = 0, w2 = 0, the heuristic itself, so what training adds is what the
    positions showed it got wrong."""

    mean: Array
    std: Array
    w1: Array  # (inputs, hidden)
    b1: Array
    w2: Array  # (hidden,)
    a: float
    c: float

    def __call__(self, x: npt.NDArray[np.floating[Any]]) -> Array:
        """Values of the rows of ``x`` (one row per seat)."""
        h = np.tanh(((x - self.mean) / self.std) @ self.w1 + self.b1)
        z = self.a * logit(x[:, -1]) + self.c + h @ self.w2
        out: Array = 1.0 / (1.0 + np.exp(-z))
        return out

    def is_heuristic(self) -> bool:
        """Whether this is the untrained network, the heuristic itself (clipped to
        ``[EDGE, 1 - EDGE]``): what training keeps when no epoch beat it."""
        return self.a == 1.0 and self.c == 0.0 and not self.w2.any()

    def arrays(self) -> dict[str, Array]:
        return {
            "mean": self.mean, "std": self.std, "w1": self.w1, "b1": self.b1,
            "w2": self.w2, "ac": np.array([self.a, self.c]),
        }  # fmt: skip


@dataclass(frozen=True)
class Weights:
    """A game's trained network with what it was made from."""

    network: Network
    meta: dict[str, Any]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(
    path: Path,
    network: Network,
    meta: Mapping[str, Any],
    this_run: Mapping[str, Any] | None = None,
) -> str:
    """Write the weights to ``path`` (GAME.npz) and the provenance beside it (GAME.json,
    with the weights file's SHA-256); return the hash. ``meta`` goes into both and must
    be a function of the command alone, so that running it again writes the same bytes;
    ``this_run`` (such as the CPU time spent, less when games were kept from before)
    goes into the provenance file only."""
    full = {"format": FORMAT, **meta}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    with tmp.open("wb") as f:  # np.savez keeps no timestamps: the same weights, same bytes
        arrays: dict[str, Any] = {
            "meta": np.array(json.dumps(full, sort_keys=True)), **network.arrays()
        }
        np.savez(f, **arrays)
    tmp.replace(path)
    digest = file_sha256(path)
    provenance = {**full, "file": path.name, "sha256": digest}
    if this_run:
        provenance["this_run"] = dict(this_run)
    path.with_suffix(".json").write_text(
        json.dumps(provenance, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return digest


def read(path: Path) -> Weights:
    """The weights in ``path``; NoLearnedValue naming what is wrong and the fix."""
    try:
        with np.load(path) as saved:
            meta: dict[str, Any] = json.loads(str(saved["meta"]))
            a, c = (float(v) for v in saved["ac"])
            net = Network(
                mean=saved["mean"], std=saved["std"], w1=saved["w1"], b1=saved["b1"],
                w2=saved["w2"], a=a, c=c,
            )  # fmt: skip
    except (OSError, ValueError, KeyError) as e:
        raise NoLearnedValue(
            f"{path} is not a learned value ({e}): make one with niwa train value GAME"
        ) from None
    if meta.get("format") != FORMAT:
        raise NoLearnedValue(f"{path} has format {meta.get('format')!r}; this niwa reads {FORMAT}")
    return Weights(net, meta)


def _location(game: str) -> Path | None:
    folder = os.environ.get("NIWA_VALUE_DIR")
    if folder:
        path = Path(folder) / f"{game}.npz"
        return path if path.is_file() else None
    try:
        shipped = resources.files(PACKAGE) / f"{game}.npz"
    except ModuleNotFoundError:
        return None
    return Path(str(shipped)) if shipped.is_file() else None


@cache
def weights_for(game: str) -> Weights:
    """``game``'s learned value (``NIWA_VALUE_DIR``'s, else the shipped one), checked
    against the installed game's features; NoLearnedValue with the fix otherwise."""
    path = _location(game)
    if path is None:
        where = os.environ.get("NIWA_VALUE_DIR") or "niwa's shipped weights"
        raise NoLearnedValue(
            f"no learned value for {game!r} in {where}: train one with "
            f"`niwa train value {game}` and point NIWA_VALUE_DIR at its folder"
        )
    weights = read(path)
    encoder = encoder_of(engine.load(game), 2)
    want = (weights.meta.get("game"), weights.meta.get("encoder"))
    if want != (game, encoder.version):
        raise NoLearnedValue(
            f"{path} was trained for {want[0]} with features {want[1]}; this niwa's {game} "
            f"has {encoder.version}: train it again with `niwa train value {game}`"
        )
    return weights


def encoder_of(game: Game, players: int) -> FeatureEncoder:
    """The game's own feature encoding (its ``feature_encoder`` hook); a game without
    one has no learned value (the generic hashed encoding belongs to the adapters)."""
    encoder = game.feature_encoder(players)
    if encoder is None:
        raise NoLearnedValue(
            f"{game.info.name} has no feature_encoder hook, which a learned value reads:"
            " give the game one (docs/adding-a-game.md)"
        )
    return encoder


class Inputs:
    """The network's input rows of a state, one per seat: the seat's features and the
    game's heuristic value for it."""

    def __init__(self, game: Game, players: int) -> None:
        self.encoder = encoder_of(game, players)
        heuristic = game.heuristic()
        if heuristic is None:
            raise NoLearnedValue(
                f"{game.info.name} has no heuristic hook, which the learned value reads"
            )
        self.heuristic: Evaluation = heuristic
        self.players = players
        self.size = self.encoder.size + 1

    def rows(self, state: State) -> npt.NDArray[np.float32]:
        """One row per seat, each seat's features written straight into its row."""
        return self.stacked((state,))

    def stacked(self, states: Sequence[State]) -> npt.NDArray[np.float32]:
        """The rows of each state (one per seat, in seat order), one state after the
        other, in one array."""
        players = self.players
        x = np.zeros((len(states) * players, self.size), np.float32)
        fast, write, heuristic = self.encoder.write_state, self.encoder.write, self.heuristic
        row = 0
        for state in states:
            x[row : row + players, -1] = heuristic(state)
            for seat in range(players):
                if fast is not None:
                    fast(state, seat, x[row, :-1])
                else:
                    write(state.observe(seat), x[row, :-1])
                row += 1
        return x


def evaluation(game: str, players: int) -> Evaluation:
    """The learned value of ``game`` at ``players`` seats, as an evaluation: a state ->
    each seat's predicted reward in [0, 1]. A trained network's evaluation also values
    many states at once (:class:`LearnedEvaluation`, ``many``), which a search's seeding
    uses; the untrained one is the heuristic, at the heuristic's own cost."""
    net = weights_for(game).network
    inputs = Inputs(engine.load(game), players)
    if net.is_heuristic():  # no training epoch beat it: the heuristic at its own cost
        heuristic = inputs.heuristic

        def clipped(state: State) -> list[float]:
            return [min(max(v, EDGE), 1.0 - EDGE) for v in heuristic(state)]

        return clipped
    return LearnedEvaluation(net, inputs)


class LearnedEvaluation:
    """The network's own arithmetic (:meth:`Network.__call__`), arranged for a search:
    the standardisation folded into the first layer, inputs the network was fitted
    without (``niwa train value --without``, all their weights zero) left out of the
    product, and, for one state, the few per-seat scalars done without numpy (a numpy
    call on a handful of numbers costs more than the sum). :meth:`many` values a batch
    in one product (a search seeding a node values every move there): a numpy call
    costs about the same for 2 rows as for 40. In Miyabi, where seeding makes nearly
    every evaluation, that took a search of 300 iterations from 1,583 to 2,012-2,471
    iterations per CPU second (the heuristic's: 4,011-4,349)."""

    def __init__(self, net: Network, inputs: Inputs) -> None:
        self.inputs = inputs
        w1 = net.w1 / net.std[:, None]
        b1 = net.b1 - (net.mean / net.std) @ net.w1
        self.a, self.c = net.a, net.c
        used = np.flatnonzero(w1.any(axis=1))
        #: the columns the network reads, None for all of them
        self.used = used if len(used) < len(w1) else None
        # The hidden layer is done in float32, the inputs' own type: numpy multiplies
        # float32 rows by float64 weights outside BLAS, about 10x slower than either
        # alone (206 Sakura rows: 490-525 µs against 45-55; 2 rows: 8 µs against 4),
        # and tanh in float32 takes a third of the time. The values differ from the
        # float64 network's by under 1e-6.
        self.w1 = np.ascontiguousarray((w1 if self.used is None else w1[used]), np.float32)
        self.b1, self.w2 = b1.astype(np.float32), net.w2.astype(np.float32)

    def _corrections(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The hidden layer's output for each row of ``x``, on the logit scale."""
        first = (x if self.used is None else x[:, self.used]) @ self.w1
        out: npt.NDArray[np.float32] = np.tanh(first + self.b1) @ self.w2
        return out

    def __call__(self, state: State) -> list[float]:
        x = self.inputs.rows(state)
        a, c, low, high, log, exp = self.a, self.c, EDGE, 1.0 - EDGE, math.log, math.exp
        values = []
        for h, z in zip(x[:, -1].tolist(), self._corrections(x).tolist(), strict=True):
            q = low if h < low else high if h > high else h
            values.append(1.0 / (1.0 + exp(-(a * log(q / (1.0 - q)) + c + z))))
        return values

    def many(self, states: Sequence[State]) -> list[list[float]]:
        """Each state's values, as calling this on each would give (to rounding)."""
        x = self.inputs.stacked(states)
        h = np.clip(x[:, -1], EDGE, 1.0 - EDGE)
        z = self.a * np.log(h / (1.0 - h)) + self.c + self._corrections(x)
        values = 1.0 / (1.0 + np.exp(-z))
        out: list[list[float]] = values.reshape(len(states), self.inputs.players).tolist()
        return out
