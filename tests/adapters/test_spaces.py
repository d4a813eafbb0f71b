"""The fixed action spaces hold every action and chance outcome a game lists."""

from __future__ import annotations

import pytest

from niwa import engine
from niwa.adapters.spaces import action_space
from niwa.engine.rulesets.bonsai.space import cells as bonsai_cells
from niwa.engine.rulesets.bonsai.space import reach as bonsai_reach
from niwa.engine.testing.checks import every_state
from tests.adapters.playouts import TABLES


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_every_listed_action_and_outcome_of_random_games_maps_into_the_space_and_back(
    game: str, players: int
) -> None:
    space = action_space(game, players)
    for seed in range(3):
        for state in every_state(engine.load(game), players, seed):
            if state.to_move() == (engine.CHANCE,):
                for outcome, _ in state.chance_outcomes():
                    i = space.chance.index(outcome)
                    assert engine.canonical_json(space.chance.value(i)) == (
                        engine.canonical_json(outcome)
                    )
            for seat in state.to_move():
                for action in state.legal_actions(seat):
                    i = space.actions.index(action)
                    assert engine.canonical_json(space.actions.value(i)) == (
                        engine.canonical_json(action)
                    )


def test_an_action_outside_the_space_is_a_key_error_naming_it() -> None:
    with pytest.raises(KeyError, match="teleport"):
        action_space("miyabi", 2).actions.index({"type": "teleport"})


def test_an_unregistered_game_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(LookupError, match="registered games"):
        action_space("chess", 2)


def test_non_default_options_are_refused() -> None:
    with pytest.raises(ValueError, match="default options"):
        action_space("blossom", 2, {"mulligan": True})


def test_bonsai_cells_are_a_hex_disk_of_the_reach_less_the_cells_no_pot_orientation_frees() -> (
    None
):
    reach = bonsai_reach(2)
    cells = bonsai_cells(2)
    assert len(cells) == len(set(cells))
    assert all((u + v) % 2 == 0 for u, v in cells)
    assert (0, -1) not in cells  # under the bud: pot in both orientations
    assert (6, 0) in cells and (-6, 0) in cells  # pot on one side only
    assert len(cells) < 3 * reach * reach + 3 * reach + 1
