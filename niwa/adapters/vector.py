"""N games of one niwa game in one process, as one PettingZoo parallel environment
(``pip install niwa[rl]``): batched observations, masks and actions, for self-play.

>>> from niwa.adapters.vector import vector_env
>>> v = vector_env("sakura", players=3, games=64)
>>> obs, infos = v.reset(seed=7)

Each agent ``player_<s>`` is seat ``s`` in every game at once: its observation is a dict
of ``observation`` (float32, ``games`` x the encoder's size) and ``action_mask`` (int8,
``games`` x the action space), its action one index per game (``MultiDiscrete``). A row
is filled where the seat is to move in that game; elsewhere it is zeros, its mask empty
and its action ignored. Simultaneous decisions (Sakura) are simply several seats to move
in one game: the parallel API takes their joint move in one ``step``.

A finished game pays its rewards (:func:`niwa.adapters.outcome.rewards`) in the step
that ends it and starts again at once; ``infos[agent]["done"]`` marks those games. So
the agents themselves never terminate; ``infos[agent]["to_move"]`` marks the games
where the seat is to move now. The arrays of an observation are the env's own buffers,
rewritten by the next ``step``: copy what you keep. Chance is drawn inside, from one
generator per game seeded from ``reset``'s seed: the whole batch is a function of that
seed and the actions. An action outside a mask raises ValueError naming the game and seat.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import ParallelEnv

from niwa.adapters.features import SIZE, encoder_for
from niwa.adapters.outcome import rewards, settle
from niwa.adapters.spaces import action_space
from niwa.engine.api import Action, State
from niwa.engine.registry import load

Observation = dict[str, npt.NDArray[Any]]
#: A seat's legal actions now: their action-space indices and the actions, in one order.
Shown = tuple[Sequence[int], list[Action]]


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def game_seed(seed: int, game: int) -> str:
    """The seed of game ``game``'s chance generator in a batch seeded ``seed``."""
    return f"niwa-vector:{seed}:{game}"


class Batch(spaces.MultiDiscrete):
    """One action per game; ``sample`` also takes the observation's 2-D ``action_mask``
    (one row per game), as PettingZoo's tests pass it."""

    def sample(self, mask: Any = None, probability: Any = None) -> npt.NDArray[np.int64]:
        if isinstance(mask, np.ndarray) and mask.ndim == 2:
            mask = tuple(mask)
        return super().sample(mask, probability)


class VectorEnv(ParallelEnv[str, Observation, npt.NDArray[np.int64]]):  # type: ignore[misc]
    """``games`` games of one niwa game at a fixed player count (default options)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "render_modes": [],
        "name": "niwa_vector_v0",
        "is_parallelizable": True,
    }

    def __init__(
        self, game: str, players: int | None = None, games: int = 16, observation_size: int = SIZE
    ) -> None:
        self.game = load(game)
        info = self.game.info
        self.players = info.min_players if players is None else players
        info.validate(self.players, None)
        if not 1 <= games <= MAX_GAMES:
            raise ValueError(f"games is 1 to {MAX_GAMES}, not {games}")
        self.space = action_space(game, self.players)
        n = len(self.space.actions)
        if games * self.players * n > MAX_MASK_BYTES:
            most = max(1, MAX_MASK_BYTES // (self.players * n))
            raise ValueError(
                f"{games} games of {game} at {self.players} players need"
                f" {games * self.players * n / 2**20:.0f} MiB of action masks ({n} actions a"
                f" seat); the most is {MAX_MASK_BYTES // 2**20} MiB: run at most {most} games"
                " per environment, and more environments (one per process) for more"
            )
        self.games = games
        self.metadata = {**self.metadata, "name": f"niwa_{game}_vector_v0"}
        self.encoder = encoder_for(self.game, self.players, observation_size)
        self.possible_agents = [agent_name(s) for s in range(self.players)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self.agents = list(self.possible_agents)
        self._action_space = Batch(np.full(games, n, np.int64))
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, (games, self.encoder.size), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (games, n), np.int8),
            }
        )
        self._obs = np.zeros((self.players, games, self.encoder.size), np.float32)
        # each row's view, made once: a view per encoded row costs as much as a short encoder
        self._rows = [list(seat_rows) for seat_rows in self._obs]
        self._masks = np.zeros((self.players, games, n), np.int8)
        self._rewards = np.zeros((self.players, games), np.float32)
        self._done = np.zeros(games, bool)
        self._to_move = np.zeros((self.players, games), bool)
        self._states: list[State] = []
        self._rngs: list[random.Random] = []
        # per game and seat to move: its legal actions and their indices
        self._legal: list[dict[int, Shown]] = [{} for _ in range(games)]
        # Flat views of the same buffers: a row is numbered seat * games + game, a mask
        # entry row * actions + index. One index array each is written several times
        # faster than (seat, game[, index]) tuples of arrays.
        self._obs_rows = self._obs.reshape(self.players * games, self.encoder.size)
        self._mask_cells = self._masks.reshape(-1)
        self._to_move_rows = self._to_move.reshape(-1)
        # the rows and mask entries the last step set, cleared at the next one
        self._shown_rows: npt.NDArray[np.intp] = np.zeros(0, np.intp)
        self._shown_masks: npt.NDArray[np.intp] = np.zeros(0, np.intp)
        self.agent_steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    @property
    def tables(self) -> list[State]:
        """The engine states (full tables: for tests and debugging, not for agents)."""
        return self._states

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        self._rngs = [random.Random(game_seed(seed, g)) for g in range(self.games)]
        self._states = [self._fresh(g) for g in range(self.games)]
        self._done[:] = False
        self._rewards[:] = 0.0
        self._show(range(self.games))
        return self._observations(), self._infos()

    def _fresh(self, g: int) -> State:
        state = self.game.new_game(self.players)
        settle(state, self._rngs[g])
        return state

    def _show(self, games: Iterable[int]) -> None:
        """Fill the rows of the seats to move in ``games`` (every game), after clearing
        the rows and mask entries the last call set: numpy writes for the whole batch,
        the encoder once per seat to move."""
        cells, to_move = self._mask_cells, self._to_move_rows
        cells[self._shown_masks] = 0
        self._obs_rows[self._shown_rows] = 0.0
        to_move[self._shown_rows] = False
        number = self.space.actions.indices
        fast, write, rows = self.encoder.write_state, self.encoder.write, self._rows
        n_games = self.games
        row_numbers: list[int] = []
        row_sizes: list[int] = []
        mask_indices: list[int] = []
        for g in games:
            state = self._states[g]
            shown: dict[int, Shown] = {}
            for seat in state.to_move():
                acts = state.legal_actions(seat)
                indices = number(acts)
                shown[seat] = indices, acts
                mask_indices += indices
                if fast is not None:  # the same row, without building the observation
                    fast(state, seat, rows[seat][g])
                else:
                    write(state.observe(seat), rows[seat][g])
                row_numbers.append(seat * n_games + g)
                row_sizes.append(len(indices))
            self._legal[g] = shown
        shown_rows = np.array(row_numbers, np.intp)
        mask = np.repeat(shown_rows * self._masks.shape[2], row_sizes)
        mask += np.array(mask_indices, np.intp)  # typed: an empty list would be floats
        cells[mask] = 1
        to_move[shown_rows] = True
        self._shown_rows = shown_rows
        self._shown_masks = mask

    def legal(self, agent: str, game: int) -> list[int]:
        """The action indices ``agent`` may take in game ``game`` now (the set entries of
        its mask row, without scanning a row as wide as the action space)."""
        seat = self._seat_of.get(agent)
        if seat is None:
            raise ValueError(f"no agent {agent!r} here: the agents are {self.possible_agents}")
        legal = self._legal[game].get(seat)
        return [] if legal is None else list(legal[0])

    def _observations(self) -> dict[str, Observation]:
        return {
            a: {"observation": self._obs[s], "action_mask": self._masks[s]}
            for s, a in enumerate(self.possible_agents)
        }

    def _infos(self) -> dict[str, dict[str, Any]]:
        return {
            a: {"done": self._done.copy(), "to_move": self._to_move[s].copy()}
            for s, a in enumerate(self.possible_agents)
        }

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Observation],
        dict[str, npt.NDArray[np.float32]],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        chosen = {  # as Python ints: one conversion, not one per game
            s: np.asarray(actions[a]).reshape(-1).tolist()
            for s, a in enumerate(self.possible_agents)
            if a in actions
        }
        for s, given in chosen.items():
            if len(given) != self.games:
                raise ValueError(
                    f"{agent_name(s)}'s action has {len(given)} entries: give one per game"
                    f" ({self.games})"
                )
        joints: list[dict[int, Action]] = []
        for g, shown in enumerate(self._legal):  # check every game first: a refusal changes nothing
            joint = {}
            for seat, (indices, acts) in shown.items():
                try:
                    joint[seat] = acts[indices.index(chosen[seat][g])]
                except KeyError:
                    raise ValueError(
                        f"{agent_name(seat)} is to move in game {g}: give its action"
                    ) from None
                except ValueError:
                    raise ValueError(
                        f"{agent_name(seat)} may not play action {chosen[seat][g]} in "
                        f"game {g} now (see its action_mask row {g})"
                    ) from None
            joints.append(joint)
        self._rewards[:] = 0.0
        self._done[:] = False
        rngs, states = self._rngs, self._states
        self.agent_steps += len(self._shown_rows)  # a decision per seat shown
        for g, joint in enumerate(joints):
            state = states[g]
            state.apply(joint)
            settle(state, rngs[g])
            if state.is_over():
                self._rewards[:, g] = rewards(state.result())
                self._done[g] = True
                states[g] = self._fresh(g)
        self._show(range(self.games))
        return (
            self._observations(),
            {a: self._rewards[s].copy() for s, a in enumerate(self.possible_agents)},
            dict.fromkeys(self.possible_agents, False),
            dict.fromkeys(self.possible_agents, False),
            self._infos(),
        )

    def state(self) -> npt.NDArray[np.float32]:
        """Every seat's rows at once: (seats, games, features)."""
        return self._obs.copy()

    def render(self) -> None:
        return None

    def close(self) -> None:
        pass


#: The most games one environment runs, and the most memory its action masks take
#: (seats x games x actions bytes: Bonsai's action space has some 97,000 entries).
MAX_GAMES = 4096
MAX_MASK_BYTES = 256 * 2**20


def vector_env(
    game: str, players: int | None = None, games: int = 16, observation_size: int = SIZE
) -> VectorEnv:
    """``games`` games of ``game``; ``players`` defaults to the game's minimum.
    ``observation_size`` is the generic encoding's, used where the game has no encoder."""
    return VectorEnv(game, players, games, observation_size)
