"""Every game at every player count passes OpenSpiel's own checks for Python games, and
OpenSpiel's MCTS plays a whole game of each through the adapter."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install niwa[rl])")

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import make_observation

import niwa.adapters.openspiel  # registers the games
from tests.adapters.playouts import TABLES


def load(game: str, players: int) -> pyspiel.Game:
    return pyspiel.load_game(f"{niwa.adapters.openspiel.short_name(game)}(players={players})")


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_openspiel_random_simulation_test_with_serialization_passes(
    game: str, players: int
) -> None:
    pyspiel.random_sim_test(load(game, players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game", sorted({g for g, _ in TABLES}))
def test_openspiel_mcts_plays_a_whole_game(game: str) -> None:
    spiel = load(game, 2)
    if spiel.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        spiel = pyspiel.convert_to_turn_based(spiel)  # MCTS needs turns
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(spiel, 2.0, 4, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = spiel.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) == 0


def test_a_game_and_state_survive_serialization_and_pickle() -> None:
    game = load("blossom", 3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[0])
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


def test_the_observation_tensor_is_the_python_observers() -> None:
    game = load("miyabi", 2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    observation = make_observation(game)
    observation.set_from(state, 1)
    assert np.array_equal(np.asarray(state.observation_tensor(1)), observation.tensor)
    assert state.observation_string(1) == observation.string_from(state, 1)


def test_the_players_parameter_sets_the_seats_and_a_wrong_count_is_refused() -> None:
    assert load("sakura", 5).num_players() == 5
    with pytest.raises(Exception, match="played by 2 to 4 players"):
        load("miyabi", 7)


def test_information_states_are_the_public_history_in_perfect_information_games_only() -> None:
    perfect = load("miyabi", 2)
    state = perfect.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.information_state_string(0) == state.information_state_string(1)
    with pytest.raises(ValueError, match="no information state"):
        make_observation(load("blossom", 2), pyspiel.IIGObservationType(perfect_recall=True))
