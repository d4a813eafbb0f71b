"""The per-game evaluations: one for every game, values in [0, 1], fair between seats,
and blind to what the evaluated seat could not see."""

from __future__ import annotations

import importlib
import random

import pytest

from niwa import engine
from niwa.bots import heuristics
from niwa.bots.heuristics import relative_values
from niwa.engine.rulesets.blossom import heuristic as blossom
from niwa.engine.rulesets.blossom.scoring import flower_value
from niwa.engine.rulesets.blossom.state import BlossomState
from niwa.engine.rulesets.bonsai.rules import LEAF, WOOD
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.rulesets.bonsai.tree import is_stuck, legal_cells
from niwa.engine.rulesets.sakura import heuristic as heuristics_sakura
from tests.search.helpers import random_game

GAMES = engine.games()


def player_counts(name: str) -> list[int]:
    info = engine.load(name).info
    return sorted({max(info.min_players, 2), info.max_players})


def test_every_registered_game_has_a_heuristic() -> None:
    assert [g for g in GAMES if heuristics.for_game(g) is None] == []


@pytest.mark.parametrize("name", GAMES)
def test_values_lie_in_0_1_and_share_out_half_a_point_per_seat(name: str) -> None:
    evaluate = heuristics.for_game(name)
    assert evaluate is not None
    for players in player_counts(name):
        for state in random_game(name, players, seed=players):
            values = evaluate(state)
            assert len(values) == players
            assert all(0.0 <= v <= 1.0 for v in values)
            # Every pair of seats splits one point between them: the values are a fair
            # share, so no seat gains from the evaluation what another does not lose.
            assert sum(values) == pytest.approx(players / 2)


@pytest.mark.parametrize("name", GAMES)
def test_seats_in_the_same_position_are_valued_alike(name: str) -> None:
    evaluate = heuristics.for_game(name)
    assert evaluate is not None
    state = engine.load(name).new_game(2, {})  # nothing dealt yet: no seat is ahead
    if isinstance(state, BonsaiState):  # except Bonsai's starting tiles (more for later seats)
        state.seats[1].supply = list(state.seats[0].supply)
    values = evaluate(state)
    assert values[0] == pytest.approx(values[1])


def test_bonsai_values_the_later_seats_extra_starting_tiles() -> None:
    evaluate = heuristics.for_game("bonsai")
    assert evaluate is not None
    first, second = evaluate(engine.load("bonsai").new_game(2, {}))
    assert second > first


@pytest.mark.parametrize("name", [g for g in GAMES if engine.load(g).info.hidden_information])
def test_a_seat_is_valued_only_from_what_it_could_see(name: str) -> None:
    game = engine.load(name)
    evaluate = heuristics.for_game(name)
    assert evaluate is not None
    for k, state in enumerate(random_game(name, 3, seed=11)):
        if k % 7 or state.is_over():
            continue
        for seat in range(3):
            observation = state.observe(seat)
            worlds = [game.determinize(observation, seat, random.Random(r)) for r in (1, 2)]
            assert evaluate(worlds[0]) == pytest.approx(evaluate(worlds[1]))


def test_relative_values_are_even_when_strengths_are_level() -> None:
    assert relative_values([7.0, 7.0, 7.0], scale=5) == pytest.approx([0.5, 0.5, 0.5])


def test_relative_values_favour_the_stronger_seat() -> None:
    low, high = relative_values([0.0, 10.0], scale=5)
    assert high > 0.5 > low


def test_a_memo_makes_each_value_once() -> None:
    memo: heuristics.Memo[str, int] = heuristics.Memo()
    made: list[str] = []

    def make() -> int:
        made.append("made")
        return len(made)

    assert [memo.get(key, make) for key in ("a", "b", "a")] == [1, 2, 1]


def test_a_full_memo_starts_over_rather_than_growing() -> None:
    memo: heuristics.Memo[int, int] = heuristics.Memo(limit=2)
    for key in range(5):
        memo.get(key, lambda: 0)
    assert len(memo.table) <= 2


@pytest.mark.parametrize(
    ("name", "memo"), [("bonsai", "_SEATS"), ("miyabi", "_END_POINTS"), ("sakura", "_VALUES")]
)
def test_a_value_kept_in_a_memo_equals_one_worked_out_afresh(name: str, memo: str) -> None:
    # Kept across the positions of several games, as in a bot's search, the memo would
    # hand back a stale part if its key missed something the part depends on.
    module = importlib.import_module(f"niwa.engine.rulesets.{name}.heuristic")
    table: heuristics.Memo[object, object] = getattr(module, memo)
    for players in player_counts(name):
        for seed in range(3):
            for state in random_game(name, players, seed=seed):
                kept = module.evaluate(state)
                table.table.clear()
                assert module.evaluate(state) == kept


def test_a_memoised_sakura_value_is_the_callers_own_list() -> None:
    state = list(random_game("sakura", 5, seed=1))[10]
    first = heuristics_sakura.evaluate(state)
    kept = list(first)
    first[0] = -1.0  # a caller changing its list must not change the memo's
    assert heuristics_sakura.evaluate(state) == kept


def test_blossom_flower_values_are_the_engines_for_every_kind() -> None:
    for seed in range(3):
        for state in random_game("blossom", 3, seed):
            assert isinstance(state, BlossomState)
            downs = [sum(d) for d in state.downs]
            assert blossom.flower_values(state.ups, downs, state.garden) == [
                flower_value(k, state.ups, downs, state.garden)
                for k in range(len(state.garden))
            ]


def test_bonsai_wood_and_leaves_have_a_cell_exactly_when_the_tree_is_not_stuck() -> None:
    # what the heuristic's turn potential asks instead of listing the cells
    for seed in range(3):
        for state in random_game("bonsai", 2, seed):
            assert isinstance(state, BonsaiState)
            for seat in state.seats:
                grows = not is_stuck(seat.tree, seat.pot)
                assert bool(legal_cells(seat.tree, seat.pot, WOOD)) == grows
                assert bool(legal_cells(seat.tree, seat.pot, LEAF)) == grows
