"""Actions built once and shared (moves.py) and the draw without a listing: they play
exactly as the generic paths and freshly written actions do."""

from __future__ import annotations

import copy
import random

import pytest

from niwa.engine import CHANCE, IllegalAction, State
from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.moves import REVEAL
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.testing.checks import every_state

from .table import CULTIVATE, meditate, place, play, supply, table


@pytest.mark.parametrize(
    ("players", "options"),
    [(1, {}), (2, {}), (4, {}), (3, {"tokonoma": True}), (1, {"soloScenario": "emperor"})],
)
def test_a_draw_takes_the_card_the_generic_walk_takes_for_the_same_rng(
    players: int, options: dict[str, object]
) -> None:
    for seed in range(3):
        for s in every_state(GAME, players, seed, options):
            if s.to_move() != (CHANCE,):
                continue
            for draw in range(20):
                mine, generic = random.Random(draw), random.Random(draw)
                assert s.sample_chance(mine) == State.sample_chance(s, generic)
                assert mine.getstate() == generic.getstate()


def _placing_table() -> BonsaiState:
    s = table()
    play(s, CULTIVATE)
    return s


def test_a_listed_placement_and_the_same_one_written_out_leave_equal_states() -> None:
    listed_state, typed_state = _placing_table(), _placing_table()
    [listed] = [a for a in listed_state.legal_actions(0) if a["type"] == "place"][:1]
    play(listed_state, listed)
    play(typed_state, copy.deepcopy(listed))
    assert listed_state.to_json() == typed_state.to_json()


def test_a_placement_listed_earlier_is_refused_once_its_cell_is_taken() -> None:
    s = _placing_table()
    supply(s, 0, wood=2)
    wood = next(a for a in s.legal_actions(0) if a == place("wood", 1, 1))
    play(s, wood)
    before = s.to_json()
    with pytest.raises(IllegalAction) as e:
        play(s, wood)
    assert e.value.rule == "bonsai.md §6.6" and s.to_json() == before


def test_a_shared_reveal_of_a_card_the_deck_lacks_is_refused() -> None:
    s = table(players=2)
    del s.pool["tool"]
    play(s, meditate(1))
    with pytest.raises(IllegalAction) as e:
        s.apply({CHANCE: REVEAL["tool"]})
    assert e.value.rule == "bonsai.md §3"


def test_a_shared_reveal_is_refused_while_goal_colours_are_drawn() -> None:
    s = GAME.new_game(2, {"useGoals": True})
    assert isinstance(s, BonsaiState) and s.phase == "goal_setup"
    with pytest.raises(IllegalAction) as e:
        s.apply({CHANCE: REVEAL["tool"]})
    assert e.value.rule == "bonsai.md §3"
