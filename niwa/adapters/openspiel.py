"""Every niwa game as an OpenSpiel Python game (``pip install niwa[rl]``).

Importing this module registers ``niwa_<game>`` for each registered game, with one game
parameter, ``players`` (default: the game's minimum):

>>> import pyspiel, niwa.adapters.openspiel
>>> game = pyspiel.load_game("niwa_blossom(players=3)")

Actions are indices into the game's fixed action space (:mod:`niwa.adapters.spaces`),
chance outcomes into its chance space: chance nodes are explicit, with the engine's
probabilities. A game whose info says ``simultaneous`` (Sakura) has simultaneous nodes
where several seats decide at once; anywhere else one seat moves. Returns come at the
end (:func:`niwa.adapters.outcome.rewards`).

Observations: a string (the seat's observation as canonical JSON) and a tensor (that
observation hashed into :data:`niwa.adapters.features.SIZE` floats). Information states
(perfect recall) are given for the perfect-information games only (Miyabi, Bonsai), as
the public action history; the hidden-information games offer none (an honest one would
be the seat's whole sequence of observations), so algorithms that need them (CFR) do
not apply to those.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from niwa.adapters.features import SIZE, encode
from niwa.adapters.outcome import reward_range, rewards
from niwa.adapters.spaces import ActionSpace, action_space, enumerated
from niwa.engine.api import CHANCE, Game, State, canonical_json
from niwa.engine.registry import games, load

#: A generous cap on a game's length in nodes (decisions and chance); OpenSpiel wants
#: one. Random play of every registered game stays far below it (tests/adapters).
MAX_GAME_LENGTH = 5000


def short_name(game: str) -> str:
    return f"niwa_{game}"


def game_type(game: Game) -> pyspiel.GameType:
    info = game.info
    t = pyspiel.GameType
    return pyspiel.GameType(
        short_name=short_name(info.name),
        long_name=f"niwa {info.name}",
        dynamics=t.Dynamics.SIMULTANEOUS if info.simultaneous else t.Dynamics.SEQUENTIAL,
        chance_mode=t.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(
            t.Information.IMPERFECT_INFORMATION
            if info.hidden_information or info.simultaneous
            else t.Information.PERFECT_INFORMATION
        ),
        # a solo game pays its score, so only games of 2+ seats are zero-sum
        utility=t.Utility.GENERAL_SUM if info.min_players == 1 else t.Utility.ZERO_SUM,
        reward_model=t.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=not info.hidden_information,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": info.min_players},
    )


class NiwaGame(pyspiel.Game):
    """One niwa game at the player count of its ``players`` parameter.

    Everything else is derived from the class's ``niwa`` and the parameters, not kept
    in attributes: an unpickled game (OpenSpiel's serialization) skips ``__init__``."""

    niwa: Game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        info = self.niwa.info
        players = int((params or {}).get("players", info.min_players))
        info.validate(players, None)
        space = action_space(info.name, players)
        lo, hi = reward_range(players)
        super().__init__(
            game_type(self.niwa),
            pyspiel.GameInfo(
                num_distinct_actions=len(space.actions),
                max_chance_outcomes=len(space.chance),
                num_players=players,
                min_utility=lo,
                max_utility=hi,
                utility_sum=None if info.min_players == 1 else 0.0,  # as game_type says
                max_game_length=MAX_GAME_LENGTH,
            ),
            {"players": players},
        )

    @property
    def players(self) -> int:
        return int(self.get_parameters()["players"])

    @property
    def space(self) -> ActionSpace:
        return action_space(self.niwa.info.name, self.players)

    def new_initial_state(self) -> NiwaState:
        return NiwaState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> Any:
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if self.niwa.info.hidden_information:
                raise ValueError(f"{self.niwa.info.name} offers no information state")
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        return Observer(params)


class NiwaState(pyspiel.State):
    """A niwa state behind OpenSpiel's State API."""

    def __init__(self, game: NiwaGame, table: State | None = None) -> None:
        super().__init__(game)
        self._held = _Held(game, game.niwa.new_game(game.players) if table is None else table)

    @property
    def _game(self) -> NiwaGame:
        return self._held.game

    @property
    def table(self) -> State:
        """The engine state."""
        return self._held.table

    def current_player(self) -> int:
        seats = self.table.to_move()
        if not seats:
            return int(pyspiel.PlayerId.TERMINAL)
        if seats == (CHANCE,):
            return int(pyspiel.PlayerId.CHANCE)
        if len(seats) > 1:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return seats[0]

    def _legal_actions(self, player: int) -> list[int]:
        codec = self._game.space.actions
        return sorted(codec.index(a) for a in self.table.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        codec = self._game.space.chance
        return sorted((codec.index(a), p) for a, p in self.table.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        seat = self.current_player()
        if seat == pyspiel.PlayerId.CHANCE:
            self.table.apply({CHANCE: self._game.space.chance.value(action)})
        else:
            self.table.apply({seat: self._game.space.actions.value(action)})

    def _apply_actions(self, actions: list[int]) -> None:
        seats = self.table.to_move()
        value = self._game.space.actions.value
        self.table.apply({s: value(actions[s]) for s in seats})

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return canonical_json(self._game.space.chance.value(action))
        return canonical_json(self._game.space.actions.value(action))

    def is_terminal(self) -> bool:
        return self.table.is_over()

    def returns(self) -> list[float]:
        if not self.table.is_over():
            return [0.0] * self._game.players
        return rewards(self.table.result())

    def __str__(self) -> str:
        return self.table.render(None)


class _Held:
    """What a state keeps. OpenSpiel clones a Python state by deep-copying its
    attributes; this copies the table with the engine's clone (far cheaper than walking
    its object graph) and shares the game."""

    __slots__ = ("game", "table")

    def __init__(self, game: NiwaGame, table: State) -> None:
        self.game = game
        self.table = table

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.game, self.table.clone())


class Observer:
    """OpenSpiel's PyObserver: the seat's observation as hashed features and as JSON."""

    def __init__(self, params: Any = None) -> None:
        if params:
            raise ValueError(f"niwa observers take no parameters, not {params!r}")
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: NiwaState, player: int) -> None:
        self.tensor[:] = encode(state.table.observe(player), SIZE)

    def string_from(self, state: NiwaState, player: int) -> str:
        return canonical_json(state.table.observe(player))


def _register(name: str) -> None:
    class Registered(NiwaGame):
        niwa = load(name)

    # a module-level name, so that pickle (OpenSpiel's serialization) finds the class
    Registered.__name__ = Registered.__qualname__ = f"Niwa{name.capitalize()}Game"
    globals()[Registered.__name__] = Registered
    pyspiel.register_game(game_type(Registered.niwa), Registered)


for _name in games():
    if enumerated(_name) and short_name(_name) not in pyspiel.registered_names():
        _register(_name)
