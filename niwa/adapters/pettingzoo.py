"""Every niwa game as a PettingZoo AEC environment (``pip install niwa[rl]``).

>>> from niwa.adapters.pettingzoo import env
>>> e = env("miyabi", players=2)
>>> e.reset(seed=7)

Agents are ``player_0`` ... ``player_{n-1}`` (the seats). An observation is a dict:
``observation``, the seat's view hashed into a float32 vector
(:mod:`niwa.adapters.features`), and ``action_mask``, int8 over the game's fixed action
space (:mod:`niwa.adapters.spaces`); ``info["legal_actions"]`` holds the same legal moves
as JSON. Chance (shuffles, draws, dice) is resolved inside the env from the seed given to
``reset``. Simultaneous decisions (Sakura) are collected seat by seat and applied
together once every seat has chosen; no seat sees another's pending choice. Rewards come
at the end only (:func:`niwa.adapters.outcome.rewards`). An action outside the mask
raises ValueError: niwa never plays a move for you.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from niwa.adapters.features import SIZE, encode
from niwa.adapters.outcome import rewards, settle
from niwa.adapters.spaces import action_space
from niwa.engine.api import Action, State, canonical_json
from niwa.engine.registry import load

Observation = dict[str, npt.NDArray[Any]]


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class NiwaEnv(AECEnv[str, Observation, int]):
    """One niwa game at a fixed player count (default options)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "render_modes": ["human", "ansi"],
        "name": "niwa_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        players: int | None = None,
        render_mode: str | None = None,
        observation_size: int = SIZE,
    ) -> None:
        super().__init__()
        self.game = load(game)
        info = self.game.info
        self.players = info.min_players if players is None else players
        info.validate(self.players, None)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of human, ansi, not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"niwa_{game}_v0"}
        self.space = action_space(game, self.players)
        self.observation_size = observation_size
        self.possible_agents = [agent_name(s) for s in range(self.players)]
        n = len(self.space.actions)
        self._action_space = spaces.Discrete(n)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self._rng = random.Random()
        self._state: State | None = None
        self._pending: dict[int, Action] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    @property
    def table(self) -> State:
        """The engine state (the full table: for tests and debugging, not for agents)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._rng = random.Random(seed)
        self._state = self.game.new_game(self.players)
        settle(self._state, self._rng)
        self._pending = {}
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next()

    def _legal(self, seat: int) -> list[Action]:
        state = self.table
        if seat in self._pending or seat not in state.to_move():
            return []
        return state.legal_actions(seat)

    def observe(self, agent: str) -> Observation:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(len(self.space.actions), np.int8)
        for action in self._legal(seat):
            mask[self.space.actions.index(action)] = 1
        vector = encode(self.table.observe(seat), self.observation_size)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        if action is None:
            raise ValueError(f"{agent} is to move: None is no action")
        chosen = self.space.actions.value(int(action))
        legal = {canonical_json(a): a for a in self._legal(seat)}
        key = canonical_json(chosen)
        if key not in legal:
            raise ValueError(f"{agent} may not play {key} now (see the action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self._pending[seat] = legal[key]
        state = self.table
        if set(self._pending) >= set(state.to_move()):
            state.apply(self._pending)
            self._pending = {}
            settle(state, self._rng)
        self._clear_rewards()
        if state.is_over():
            for a, r in zip(self.possible_agents, rewards(state.result()), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
        self._accumulate_rewards()
        self._next()
        if self.render_mode == "human":
            self.render()

    def _next(self) -> None:
        """Select the next seat still to choose (the first seat once the game is over)."""
        state = self.table
        waiting = [s for s in state.to_move() if s not in self._pending]
        self.agent_selection = agent_name(waiting[0]) if waiting else self.agents[0]
        for a in self.agents:
            self.infos[a] = {
                "legal_actions": self._legal(self.possible_agents.index(a)),
            }

    def render(self) -> str | None:
        """The table as a spectator sees it (text); ``human`` prints it."""
        if self.render_mode is None:
            return None
        text = self.table.render(None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(
    game: str,
    players: int | None = None,
    render_mode: str | None = None,
    observation_size: int = SIZE,
) -> NiwaEnv:
    """The AEC environment of ``game``; ``players`` defaults to the game's minimum."""
    return NiwaEnv(game, players, render_mode, observation_size)
