"""Set-up and the flow of a round (sakura.md §6 #1, #2, #14, #17)."""

from __future__ import annotations

import pytest

from niwa import engine
from niwa.engine import CHANCE, IllegalAction
from niwa.engine.rulesets.sakura import GAME
from tests.games.fixed_rng import FixedRng
from tests.games.sakura.table import decide, draw_all, play, table


def test_setup_puts_the_emperor_on_the_torii_and_every_painter_on_the_gate() -> None:
    state = GAME.new_game(4)
    assert state.garden.emperor == 4
    assert state.garden.painters == [0, 0, 0, 0]
    assert state.garden.tokens == [5, 5, 5, 5]


def test_the_supply_is_the_neutral_tokens_plus_the_unused_colours() -> None:
    assert GAME.new_game(4).garden.supply == 24 + 2 * 5
    assert GAME.new_game(6).garden.supply == 24


def test_with_five_players_the_emperor_starts_on_the_longer_paths_torii() -> None:
    assert GAME.new_game(5).garden.emperor == 6


def test_the_deal_is_chance_with_every_card_equally_likely() -> None:
    state = GAME.new_game(3)
    assert state.to_move() == (CHANCE,)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 60
    assert {p for _, p in outcomes} == {1 / 60}


def test_after_the_deal_every_seat_holds_five_cards_and_chooses_at_once() -> None:
    state = draw_all(GAME.new_game(3))
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert state.to_move() == (0, 1, 2)
    assert state.round == 1


def test_each_seat_may_play_any_card_of_its_hand() -> None:
    state = table(3, hands=[[3, 9, 12, 30, 41], [], []])
    assert state.legal_actions(0) == [{"type": "play", "card": c} for c in (3, 9, 12, 30, 41)]


def test_the_simultaneous_choice_needs_every_seat_at_once() -> None:
    state = table(3, hands=[[11], [26], [50]])
    before = state.to_json()
    with pytest.raises(IllegalAction) as e:
        state.apply({0: {"type": "play", "card": 11}, 1: {"type": "play", "card": 26}})
    assert e.value.rule == "sakura.md §6"
    assert state.to_json() == before


def test_a_card_not_in_hand_is_refused_and_changes_nothing() -> None:
    state = table(3, hands=[[11], [26], [50]])
    before = state.to_json()
    with pytest.raises(IllegalAction, match="no card 26 in hand"):
        state.apply({0: {"type": "play", "card": 26}, 1: {"type": "play", "card": 26},
                     2: {"type": "play", "card": 50}})
    assert state.to_json() == before


def test_another_seats_listed_play_handed_back_is_refused_for_a_seat_without_the_card(
) -> None:
    # the very object listed for seat 1, as an in-process bot could hand it back
    state = table(3, hands=[[11], [26], [50]])
    borrowed = state.legal_actions(1)[0]
    before = state.to_json()
    with pytest.raises(IllegalAction, match=f"seat 0 has no card {borrowed['card']} in hand"):
        state.apply({0: borrowed, 1: borrowed, 2: state.legal_actions(2)[0]})
    assert state.to_json() == before


def test_cards_resolve_in_order_number_order_not_seat_order() -> None:
    # Cards 11, 26 and 50 all read: Emperor forward 1, then forward 1.
    state = table(3, hands=[[50], [11], [26]])
    play(state, {0: 50, 1: 11, 2: 26})
    assert state.garden.painters == [3, 1, 2]
    assert state.garden.emperor == 7


def test_the_garden_action_comes_before_the_painter_action() -> None:
    # Card 14: Emperor forward 1, then forward 2. Painter first would walk into him.
    state = table(3, emperor=10, painters=[8, 0, 0], hands=[[14], [24], [28]])
    play(state, {0: 14, 1: 24, 2: 28})
    assert state.garden.emperor == 11
    assert state.garden.painters[0] == 10
    assert state.garden.tokens[0] == 5


def test_the_owner_chooses_the_emperors_direction_when_the_card_resolves() -> None:
    # Card 11 resolves on its own; card 13 (Emperor forward or back 1) then asks seat 1.
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    assert state.to_move() == (1,)
    assert state.garden.painters[0] == 1  # card 11 is already done
    assert state.legal_actions(1) == [
        {"type": "emperor", "direction": "forward"},
        {"type": "emperor", "direction": "back"},
    ]
    assert state.legal_actions(0) == []


def test_the_owner_chooses_the_painters_direction_after_the_garden_action() -> None:
    state = table(3, emperor=8, painters=[0, 6, 0], hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50}, ["forward"])
    assert state.to_move() == (1,)
    assert state.legal_actions(1)[1] == {"type": "painter", "direction": "back"}
    decide(state, ["back"])  # card 13: forward or back 2
    assert state.garden.painters[1] == 4


def test_a_wrong_direction_answer_is_refused() -> None:
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    with pytest.raises(IllegalAction) as e:
        state.apply({1: {"type": "painter", "direction": "forward"}})
    assert e.value.rule == "sakura.md §2"


def test_resolved_cards_are_discarded_and_everyone_draws_one_in_seat_order() -> None:
    state = table(3, hands=[[50], [11], [26]])
    play(state, {0: 50, 1: 11, 2: 26})
    assert sorted(state.discard) == [11, 26, 50]
    assert state.to_move() == (CHANCE,)
    assert state.draws == [0, 1, 2]
    draw_all(state)
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert state.to_move() == (0, 1, 2) and state.round == 2


def test_an_empty_deck_is_refilled_from_the_discard_pile_including_this_rounds_cards() -> None:
    state = table(3, hands=[[50], [11], [26]], deck=[])
    discarded = len(state.discard)
    play(state, {0: 50, 1: 11, 2: 26})
    assert state.discard == [] and len(state.deck) == discarded + 3
    assert {50, 11, 26} <= set(state.deck)


def test_changing_a_list_of_legal_actions_does_not_change_the_game() -> None:
    state = table(3, hands=[[3, 9, 12, 30, 41], [], []])
    state.legal_actions(0).clear()
    assert len(state.legal_actions(0)) == 5


def test_a_clone_offers_the_decisions_of_its_own_position() -> None:
    state = table(3, hands=[[11], [13], [50]])
    before = state.legal_actions(1)
    copy = state.clone()
    play(copy, {0: 11, 1: 13, 2: 50})
    assert copy.legal_actions(1)[0] == {"type": "emperor", "direction": "forward"}
    assert state.legal_actions(1) == before


def test_a_draw_takes_the_card_at_the_random_fraction_of_the_sorted_deck() -> None:
    state = GAME.new_game(3)
    deck = sorted(state.deck)
    for x, index in ((0.0, 0), (0.5, 30), (0.999, 59), (1 - 2**-53, 59)):
        assert engine.sample_chance(state, FixedRng(x)) == {"type": "draw", "card": deck[index]}


def test_a_drawn_card_leaves_the_deck_and_joins_the_hand_in_order() -> None:
    state = GAME.new_game(3)
    for card in (40, 7, 23):  # seats 0, 1, 2 ...
        state.apply({CHANCE: {"type": "draw", "card": card}})
    state.apply({CHANCE: {"type": "draw", "card": 2}})  # ... and seat 0 again
    assert state.hands[0] == [2, 40] and state.hands[1] == [7]
    assert not {40, 7, 23, 2} & set(state.deck) and state.deck == sorted(state.deck)


@pytest.mark.parametrize(
    "outcome",
    [
        {"type": "draw", "card": 999},  # not in the deck
        {"type": "draw", "card": True},  # true is == 1 but not a card number
        {"type": "reveal", "card": 1},  # a reveal is the court card's, not a deal
        {"type": "draw", "card": 1, "extra": 0},
        [("type", "draw"), ("card", 1)],
    ],
)
def test_a_chance_outcome_that_is_not_a_deck_card_is_refused(outcome: object) -> None:
    state = GAME.new_game(3)
    before = state.to_json()
    with pytest.raises(IllegalAction) as err:
        state.apply({CHANCE: outcome})
    assert err.value.rule == "sakura.md §6"
    assert state.to_json() == before


def test_actions_asked_for_during_the_deal_are_not_kept_once_the_round_begins() -> None:
    state = GAME.new_game(2)
    while state.to_move() == (CHANCE,):
        assert state.legal_actions(0) == []  # chance moves: nobody else does
        state.apply({CHANCE: engine.sample_chance(state, FixedRng(0.25))})
    assert len(state.legal_actions(0)) == 5


def test_a_sampled_court_card_is_one_of_the_listed_reveals() -> None:
    state = draw_all(GAME.new_game(2))
    state.apply({0: {"type": "play", "card": state.hands[0][0]},
                 1: {"type": "play", "card": state.hands[1][0]}})
    listed = [outcome for outcome, _ in state.chance_outcomes()]
    for x in (0.0, 0.3, 0.999999):
        assert engine.sample_chance(state, FixedRng(x)) in listed
    assert listed[0]["type"] == "reveal"


@pytest.mark.parametrize("card", [11.0, True, "11"])
def test_a_card_number_of_another_json_type_is_refused_and_changes_nothing(card: object) -> None:
    state = table(3, hands=[[11], [26], [50]])
    before = state.to_json()
    with pytest.raises(IllegalAction) as e:
        state.apply({0: {"type": "play", "card": card}, 1: {"type": "play", "card": 26},
                     2: {"type": "play", "card": 50}})
    assert e.value.rule == "sakura.md §6"
    assert state.to_json() == before


def test_a_listed_play_and_the_same_play_spelled_afresh_lead_to_the_same_state() -> None:
    listed, spelled = table(3, hands=[[11], [26], [50]]), table(3, hands=[[11], [26], [50]])
    chosen = {0: 11, 1: 26, 2: 50}
    listed.apply({s: next(a for a in listed.legal_actions(s) if a["card"] == c)
                  for s, c in chosen.items()})
    spelled.apply({0: {"card": 11, "type": "play"}, 1: {"card": 26, "type": "play"},
                   2: {"card": 50, "type": "play"}})
    assert listed.to_json() == spelled.to_json()


def test_a_direction_with_an_extra_key_is_refused() -> None:
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    with pytest.raises(IllegalAction) as e:
        state.apply({1: {"type": "emperor", "direction": "forward", "also": 1}})
    assert e.value.rule == "sakura.md §2"
