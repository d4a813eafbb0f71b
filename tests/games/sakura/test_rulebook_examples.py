"""The three PLAY EXAMPLES of the rulebook (docs/games/sakura.md), one round with three
players: blue (seat 0), red (seat 1) and green (seat 2).

The pictured cards' order numbers are not printed in the text, so blue's card is given
the number 5 (before green's card 20 and red's card 22, as the examples need); the other
two are cards of the default deck with the pictured actions. Where a test looks at the
middle of the round, the seats whose cards come later play a forward-or-back card, so
resolution waits for their choice (sakura.md §2, §6)."""

from __future__ import annotations

from niwa.engine.rulesets.sakura.rules import CLOSEST_BACK_2, EMP_FWD_2, FURTHEST_FWD_2
from tests.games.sakura.table import DEFAULT_DECK, decide, play, table

BLUE, RED, GREEN = 0, 1, 2
BLUE_CARD = 5  # pictured: closest painter back 2, then forward 1
GREEN_CARD = 20  # furthest painter forward 2, then forward 3
RED_CARD = 22  # Emperor forward 2, then forward 2
WAIT_A, WAIT_B = 24, 28  # Emperor forward or back 1: resolution waits for the owner
EXAMPLE_CARDS = {BLUE_CARD: (CLOSEST_BACK_2, "FWD_1")}


def test_the_example_cards_have_the_pictured_actions() -> None:
    assert (DEFAULT_DECK[GREEN_CARD].garden, DEFAULT_DECK[GREEN_CARD].painter) == (
        FURTHEST_FWD_2,
        "FWD_3",
    )
    assert (DEFAULT_DECK[RED_CARD].garden, DEFAULT_DECK[RED_CARD].painter) == (EMP_FWD_2, "FWD_2")


def test_example_1_closest_painter_moves_back_skipping_occupied_spaces_then_blue_moves() -> None:
    # Emperor on 15; red 14 is closest, green 13, blue 11.
    state = table(3, emperor=15, painters=[11, 14, 13], hands=[[BLUE_CARD], [WAIT_B], [WAIT_A]],
                  cards=EXAMPLE_CARDS)
    play(state, {BLUE: BLUE_CARD, RED: WAIT_B, GREEN: WAIT_A})
    assert state.to_move() == (GREEN,)  # blue's card is done; green's card waits
    # (A) red back 2: 13 (green) is skipped, 12 counts, 11 (blue) is skipped, 10 counts.
    assert state.garden.painters[RED] == 10
    # (B) blue forward 1 onto the empty 12.
    assert state.garden.painters[BLUE] == 12


def test_example_2_last_painter_moves_up_then_green_bumps_the_emperor() -> None:
    # After example 1: Emperor 15, green 13, blue 12, red 10 (last).
    state = table(3, emperor=15, painters=[12, 10, 13], hands=[[WAIT_A], [WAIT_B], [GREEN_CARD]])
    play(state, {BLUE: WAIT_A, RED: WAIT_B, GREEN: GREEN_CARD})
    assert state.to_move() == (BLUE,)
    # (A) red is furthest: forward 2, skipping blue (12) and green (13): 11, 14.
    assert state.garden.painters[RED] == 14
    # (B) green forward 3: 14 is red's, 15 is the Emperor's: a bump after one space.
    # (C) back 3 empty spaces from 15: 14 (red) skipped, 13, 12 (blue) skipped, 11, 10.
    assert state.garden.painters[GREEN] == 10
    assert state.garden.tokens[GREEN] == 4
    assert state.garden.supply == 24 + 5 * 3 + 1


def test_example_3_the_emperor_crosses_a_one_space_bridge_in_one_move() -> None:
    # After example 2: Emperor 15 just before bridge B3 (space 16), red 14.
    state = table(3, emperor=15, painters=[12, 14, 10], hands=[[WAIT_A], [RED_CARD], [WAIT_B]])
    play(state, {BLUE: WAIT_A, RED: RED_CARD, GREEN: WAIT_B})
    assert state.to_move() == (BLUE,)
    assert state.garden.emperor == 17  # (A) 16 is the bridge, 17 beyond it
    assert state.garden.painters[RED] == 16  # (C) red forward 2 onto the bridge


def test_example_3_with_five_players_the_emperor_stops_halfway_across() -> None:
    # The same spot on the 5-6 player path: Emperor 19, bridge B3 is spaces 20-22.
    state = table(5, emperor=19, painters=[12, 18, 10, 0, 0],
                  hands=[[WAIT_A], [RED_CARD], [WAIT_B], [39], [44]])
    play(state, {BLUE: WAIT_A, RED: RED_CARD, GREEN: WAIT_B, 3: 39, 4: 44})
    assert state.to_move() == (BLUE,)
    assert state.garden.emperor == 21  # (B) the middle space of the bridge
    assert state.garden.painters[RED] == 20  # red forward 2: 19, then the bridge's 20
    assert state.garden.board.bridges[2] == (20, 21, 22)


def test_the_three_examples_as_one_round() -> None:
    state = table(3, emperor=15, painters=[11, 14, 13],
                  hands=[[BLUE_CARD], [RED_CARD], [GREEN_CARD]], cards=EXAMPLE_CARDS)
    play(state, {BLUE: BLUE_CARD, RED: RED_CARD, GREEN: GREEN_CARD})
    assert state.garden.emperor == 17
    assert state.garden.painters == [12, 16, 10]
    assert state.garden.tokens == [5, 5, 4]
    assert state.phase == "draw" and state.draws == [0, 1, 2]
    assert sorted(state.discard) == [BLUE_CARD, GREEN_CARD, RED_CARD]


def test_a_waiting_card_resolves_with_its_owners_choice() -> None:
    state = table(3, emperor=15, painters=[11, 14, 13], hands=[[BLUE_CARD], [WAIT_B], [WAIT_A]],
                  cards=EXAMPLE_CARDS)
    play(state, {BLUE: BLUE_CARD, RED: WAIT_B, GREEN: WAIT_A})
    # Green's card 24: the Emperor back to 14; nobody is ahead of green (13) to count.
    # Red's card 28: the Emperor forward to 15, then red back 2 from 10 to 8.
    decide(state, ["back", "forward", "back"])
    assert state.phase == "draw"
    assert state.garden.emperor == 15
    assert state.garden.painters == [12, 8, 13]
