"""Movement on the garden path (sakura.md §6 #3-#13, §4)."""

from __future__ import annotations

from niwa.engine.rulesets.sakura import GAME
from niwa.engine.rulesets.sakura.garden import Garden
from niwa.engine.rulesets.sakura.state import SakuraState
from tests.conformance.checks import playout
from tests.games.sakura.table import play, table


def garden(players: int = 3, emperor: int = 11, painters: list[int] | None = None,
           tokens: list[int] | None = None) -> Garden:
    return table(players, emperor=emperor, painters=painters, tokens=tokens).garden


def test_a_painter_counts_only_empty_spaces_going_forward() -> None:
    g = garden(painters=[2, 3, 5])
    g.forward(0, 2)  # 3 is taken, 4 counts, 5 is taken, 6 counts
    assert g.painters[0] == 6


def test_a_painter_counts_only_empty_spaces_going_back() -> None:
    g = garden(painters=[8, 7, 5])
    g.back(0, 2)  # 7 taken, 6 counts, 5 taken, 4 counts
    assert g.painters[0] == 4


def test_painters_leave_the_gate_one_by_one_onto_separate_spaces() -> None:
    g = garden(painters=[0, 0, 0])
    g.forward(0, 1)
    g.forward(1, 1)
    assert g.painters == [1, 2, 0]


def test_a_painter_pushed_back_past_the_first_space_stops_on_the_gate() -> None:
    g = garden(painters=[2, 0, 0])
    g.back(0, 3)
    assert g.painters[0] == 0


def test_the_gate_holds_any_number_of_painters() -> None:
    g = garden(painters=[1, 0, 0])
    g.back(0, 1)
    assert g.painters == [0, 0, 0]


def test_walking_into_the_emperor_stops_costs_a_token_and_goes_back_three_empty_spaces() -> None:
    g = garden(emperor=11, painters=[9, 8, 0])
    assert g.forward(0, 3)  # 10, then 11 is the Emperor: the move stops there
    assert g.tokens[0] == 4
    assert g.painters[0] == 7  # back from 11: 10, 9 (own old space, now empty), 8 taken, 7
    assert g.supply == 24 + 15 + 1


def test_a_disgraced_painter_with_no_token_loses_nothing() -> None:
    g = garden(emperor=11, painters=[10, 0, 0], tokens=[0, 5, 5])
    g.forward(0, 1)
    assert g.tokens[0] == 0
    assert g.painters[0] == 8


def test_a_full_move_that_stops_short_of_the_emperor_is_no_bump() -> None:
    g = garden(emperor=11, painters=[7, 0, 0])
    assert not g.forward(0, 3)
    assert g.painters[0] == 10 and g.tokens[0] == 5


def test_the_emperor_stepping_back_onto_a_painter_disgraces_it() -> None:
    g = garden(emperor=11, painters=[10, 9, 0])
    g.emperor_back()
    assert g.emperor == 10
    assert g.tokens == [4, 5, 5]
    assert g.painters[0] == 6  # back 3 from 10: 9 taken, 8, 7, 6


def test_the_emperor_never_steps_back_onto_the_gate() -> None:
    g = garden(emperor=1, painters=[0, 0, 0])
    g.emperor_back()
    assert g.emperor == 1


def test_the_emperor_moves_exactly_his_distance_past_painters_behind_him() -> None:
    g = garden(emperor=5, painters=[4, 3, 0])
    assert g.emperor_forward(2) is None
    assert g.emperor == 7


def test_the_closest_painter_is_the_one_furthest_along_the_path() -> None:
    assert garden(painters=[3, 8, 0]).closest() == 1


def test_nobody_is_closest_when_every_painter_is_on_the_gate() -> None:
    assert garden(painters=[0, 0, 0]).closest() is None


def test_nobody_is_furthest_when_two_painters_share_the_gate() -> None:
    assert garden(painters=[4, 0, 0]).furthest() is None


def test_a_lone_painter_on_the_gate_is_the_furthest() -> None:
    assert garden(painters=[4, 2, 0]).furthest() == 2


def test_with_nobody_on_the_gate_the_rearmost_painter_is_the_furthest() -> None:
    assert garden(painters=[4, 2, 7]).furthest() == 1


def test_jump_ahead_lands_on_the_first_empty_space_past_the_next_painter() -> None:
    g = garden(emperor=12, painters=[3, 6, 7])
    g.jump_ahead(0)  # next painter ahead is on 6; 7 is taken too; 8 is the first empty
    assert g.painters[0] == 8


def test_jump_ahead_into_the_emperors_space_is_a_bump() -> None:
    g = garden(emperor=11, painters=[3, 10, 0])
    g.jump_ahead(0)
    assert g.tokens[0] == 4
    assert g.painters[0] == 7  # back from 11: 10 taken, 9, 8, 7


def test_jump_ahead_does_not_move_the_closest_painter() -> None:
    g = garden(emperor=11, painters=[9, 4, 0])
    g.jump_ahead(0)
    assert g.painters[0] == 9


def test_jump_ahead_from_the_gate_ignores_painters_sharing_the_gate() -> None:
    g = garden(emperor=11, painters=[0, 0, 0])
    g.jump_ahead(0)
    assert g.painters[0] == 0


def test_count_ahead_moves_one_empty_space_per_painter_ahead() -> None:
    g = garden(emperor=20, painters=[2, 5, 9])
    g.count_ahead(0)  # two painters ahead: 3, 4
    assert g.painters[0] == 4


def test_count_ahead_from_the_gate_counts_only_painters_on_the_path() -> None:
    g = garden(players=4, emperor=20, painters=[0, 0, 5, 9])
    g.count_ahead(0)
    assert g.painters[0] == 2


def test_count_ahead_does_not_move_the_closest_painter() -> None:
    g = garden(emperor=11, painters=[9, 4, 0])
    g.count_ahead(0)
    assert g.painters[0] == 9


def test_count_ahead_can_bump_the_emperor() -> None:
    g = garden(players=4, emperor=8, painters=[5, 6, 7, 0])
    g.count_ahead(0)  # two ahead; 6 and 7 are taken, so the first step reaches 8
    assert g.tokens[0] == 4
    assert g.painters[0] == 3  # back from 8: 7 and 6 taken, then 5, 4, 3


def test_a_five_player_bridge_is_three_one_painter_spaces() -> None:
    g = garden(players=5, emperor=20, painters=[2, 3, 4, 0, 0])
    g.forward(3, 2)  # 1, then 2, 3, 4 taken, so 5 (the bridge's last space)
    assert g.painters[3] == 5
    assert g.board.bridges[0] == (3, 4, 5)


def test_closest_back_two_moves_nobody_when_everyone_is_on_the_gate() -> None:
    # Card 6: closest painter back 2, then jump ahead; cards 10 and 13 wait for a choice.
    state = table(3, painters=[0, 0, 0], hands=[[6], [10], [13]])
    play(state, {0: 6, 1: 10, 2: 13})
    assert state.to_move() == (1,)
    assert state.garden.painters == [0, 0, 0]


def test_furthest_forward_two_bumps_and_penalises_the_painter_moved() -> None:
    # Card 7 (seat 1): furthest painter forward 2, then count ahead.
    state = table(3, emperor=6, painters=[3, 4, 2], hands=[[10], [7], [13]])
    play(state, {0: 10, 1: 7, 2: 13})
    assert state.to_move() == (0,)
    # Seat 2 is furthest: 3 and 4 are taken, 5, then 6 is the Emperor: a bump.
    assert state.garden.tokens == [5, 5, 4]
    assert state.garden.painters == [3, 4, 1]  # back from 6: 5, (4, 3 taken), 2, 1


def test_closest_back_two_can_move_the_cards_own_painter() -> None:
    # Card 30: closest painter back 2, then forward or back 3 (seat 0 is then asked).
    state = table(3, emperor=11, painters=[10, 5, 3], hands=[[30], [54], [59]])
    play(state, {0: 30, 1: 54, 2: 59})
    assert state.to_move() == (0,) and state.step == "painter"
    assert state.garden.painters == [8, 5, 3]


def test_furthest_forward_two_can_move_the_cards_own_painter() -> None:
    # Card 42: furthest painter forward 2, then forward 1; cards 54 and 59 wait.
    state = table(3, emperor=11, painters=[1, 5, 7], hands=[[42], [54], [59]])
    play(state, {0: 42, 1: 54, 2: 59})
    assert state.to_move() == (1,)
    assert state.garden.painters == [4, 5, 7]  # 2, 3, then 4


def test_a_disgrace_counts_each_space_of_a_five_player_bridge() -> None:
    # Bridge B2 is spaces 11-13 on the long path; the Emperor stands just past it.
    g = garden(players=5, emperor=14, painters=[13, 12, 0, 0, 0])
    g.forward(0, 1)
    assert g.painters[0] == 10  # back from 14: 13, 12 taken, 11, 10
    assert g.tokens[0] == 4


def test_the_emperor_stepping_back_onto_a_painter_without_tokens_only_sends_it_back() -> None:
    g = garden(emperor=11, painters=[10, 0, 0], tokens=[0, 5, 5])
    g.emperor_back()
    assert g.tokens[0] == 0 and g.supply == 24 + 15
    assert g.painters[0] == 7


def test_every_painter_stays_behind_the_emperor_in_whole_games() -> None:
    # sakura.md §6 #15: the gate, or a path space short of the Emperor; one painter a space.
    for players in range(2, 7):
        for state, _ in playout(GAME, players, seed=players):
            assert isinstance(state, SakuraState)
            g = state.garden
            on_path = [q for q in g.painters if q != 0]
            assert all(q < g.emperor for q in on_path)
            assert len(set(on_path)) == len(on_path)
            assert 1 <= g.emperor <= g.board.length
