"""Sakura spaces, scoring, regrouping and the game end (sakura.md §6 #14, #16, §7, §8)."""

from __future__ import annotations

from niwa.engine import CHANCE
from niwa.engine.rulesets.sakura import GAME
from niwa.engine.rulesets.sakura.garden import Garden
from tests.games.sakura.table import decide, play, table


def test_the_emperor_halts_on_an_unscored_sakura_even_mid_move() -> None:
    # Card 9: Emperor forward 2, then forward 2. Sakura S1 is space 12.
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    assert state.garden.emperor == 12
    assert state.garden.scored == [True, False, False]


def test_after_the_halt_the_same_cards_painter_action_still_runs() -> None:
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    assert state.garden.painters[0] == 11  # 9, then 10 is taken, 11


def test_the_rounds_other_cards_are_discarded_unresolved() -> None:
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    assert state.played == [[0, 9, "resolved"], [1, 40, "discarded"], [2, 50, "discarded"]]
    assert sorted(state.discard) == [9, 40, 50]
    assert state.to_move() == (CHANCE,) and state.draws == [0, 1, 2]


def test_the_closest_painters_earn_three_two_and_one() -> None:
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    assert state.garden.tokens == [8, 7, 6]
    assert state.garden.supply == 24 + 15 - 6
    assert state.scorings == [{"sakura": 0, "round": 1, "awards": [[0, 3], [1, 2], [2, 1]]}]


def test_the_line_regroups_directly_behind_the_first_painter() -> None:
    state = table(4, emperor=11, painters=[8, 10, 5, 2], hands=[[9], [40], [50], [60]])
    play(state, {0: 9, 1: 40, 2: 50, 3: 60})
    assert state.garden.painters == [11, 10, 9, 8]


def test_with_five_players_the_fourth_painter_earns_one_token() -> None:
    # Sakura S1 is space 16 on the long path; card 11: Emperor forward 1, then forward 1.
    state = table(5, emperor=15, painters=[13, 14, 12, 11, 10],
                  hands=[[11], [40], [50], [53], [56]])
    play(state, {0: 11, 1: 40, 2: 50, 3: 53, 4: 56})
    assert state.garden.emperor == 16
    assert state.garden.tokens == [8, 7, 6, 6, 5]  # seat 0 skipped seat 1 onto 15


def test_with_four_players_the_fourth_painter_earns_nothing() -> None:
    state = table(4, emperor=11, painters=[9, 10, 8, 7], hands=[[11], [40], [50], [53]])
    play(state, {0: 11, 1: 40, 2: 50, 3: 53})
    assert state.garden.tokens == [8, 7, 6, 5]  # seat 0 skipped seat 1 onto 11


def test_a_lone_painter_on_the_gate_is_ranked_last_and_moves_up_behind() -> None:
    state = table(3, emperor=11, painters=[10, 7, 0], hands=[[11], [40], [50]])
    play(state, {0: 11, 1: 40, 2: 50})  # card 11: Emperor forward 1, then forward 1
    assert state.garden.tokens == [8, 7, 6]
    assert state.garden.painters == [11, 10, 9]


def test_painters_sharing_the_gate_score_nothing_and_stay_there() -> None:
    state = table(3, emperor=11, painters=[10, 0, 0], hands=[[11], [40], [50]])
    play(state, {0: 11, 1: 40, 2: 50})
    assert state.garden.tokens == [8, 5, 5]
    assert state.garden.painters == [11, 0, 0]


def test_a_painter_regrouped_to_the_gate_or_before_it_stands_on_the_gate() -> None:
    garden: Garden = table(4, emperor=12, painters=[1, 3, 2, 0]).garden
    garden.score((3, 2, 1))
    assert garden.painters == [1, 3, 2, 0]
    assert garden.tokens == [6, 8, 7, 5]  # the lone gate painter is 4th: no 4th reward


def test_a_scored_sakura_no_longer_stops_the_emperor() -> None:
    state = table(3, emperor=11, painters=[0, 0, 0], scored=[True, False, False],
                  hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    assert state.garden.emperor == 15  # 9: 12, 13; then cards 40 and 50: 14, 15
    assert state.scorings == []


def test_only_a_forward_step_onto_a_sakura_scores() -> None:
    # Card 4: Emperor back 1, from 13 onto the (scripted) unscored sakura on 12.
    state = table(3, emperor=13, painters=[0, 0, 0], hands=[[4], [24], [28]])
    play(state, {0: 4, 1: 24, 2: 28})
    assert state.garden.emperor == 12
    assert state.garden.scored == [False, False, False]


def test_the_last_sakura_pays_four_to_the_first_and_ends_the_game_at_once() -> None:
    state = table(3, emperor=29, painters=[27, 25, 20], scored=[True, True, False],
                  hands=[[11], [40], [50]])
    play(state, {0: 11, 1: 40, 2: 50})
    assert state.garden.emperor == 30
    assert state.garden.tokens == [9, 7, 6]
    assert state.to_move() == () and state.is_over()
    assert state.draws == []


def test_most_tokens_wins() -> None:
    state = table(3, painters=[1, 2, 3], tokens=[9, 7, 8])
    assert state.result().places == (0, 2, 1)
    assert state.result().scores == (9.0, 7.0, 8.0)


def test_a_tie_goes_to_the_tied_painter_nearest_the_emperor() -> None:
    state = table(3, painters=[1, 3, 2], tokens=[9, 9, 5])
    assert state.result().places == (1, 0, 2)


def test_a_tie_between_painters_on_the_gate_is_shared() -> None:
    state = table(3, painters=[0, 0, 2], tokens=[9, 9, 5])
    assert state.result().places == (0, 0, 2)


def test_the_halting_cards_owner_is_asked_its_direction_before_the_scoring() -> None:
    # Card 8: Emperor forward 1 (onto sakura S1 on 12), then forward or back 1.
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[8], [40], [50]])
    play(state, {0: 8, 1: 40, 2: 50})
    assert state.to_move() == (0,) and state.halt == 0
    assert state.garden.scored == [False, False, False]
    decide(state, ["back"])  # seat 0 drops to 7, so it ranks second
    assert state.garden.tokens == [7, 8, 6]
    assert state.garden.painters == [9, 10, 8]


def test_the_halting_cards_painter_can_bump_before_the_scoring() -> None:
    # Card 9: Emperor forward 2 halts on 12 after one step; seat 0 forward 2 walks into him.
    state = table(3, emperor=11, painters=[10, 9, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    # back from 12: 11, 10 (its own old space), 9 taken, 8; seat 1 is now first.
    assert state.garden.tokens == [4 + 2, 5 + 3, 5 + 1]
    assert state.garden.painters == [8, 9, 7]


def test_with_five_players_the_line_regroups_onto_single_bridge_spaces() -> None:
    # Long path: S1 is 16, bridge B2 is 11-13. Card 11: Emperor forward 1, then forward 1.
    state = table(5, emperor=15, painters=[14, 10, 7, 0, 0],
                  hands=[[11], [40], [50], [53], [56]])
    play(state, {0: 11, 1: 40, 2: 50, 3: 53, 4: 56})
    assert state.garden.painters == [15, 14, 13, 0, 0]
    assert 13 in state.garden.board.bridges[1]
    # The two painters sharing the gate are unranked, so nobody takes the 4th token.
    assert state.garden.tokens == [8, 7, 6, 5, 5]


def test_fifty_four_tokens_are_in_play_at_every_player_count() -> None:
    for players in range(2, 7):
        g = GAME.new_game(players).garden
        assert sum(g.tokens) + g.supply == 54


def test_tokens_lost_and_earned_move_between_painters_and_the_supply() -> None:
    state = table(3, emperor=11, painters=[10, 9, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})  # a bump, then a scoring
    assert sum(state.garden.tokens) + state.garden.supply == 54
