"""Two players: the court painter and the tricky variant (sakura.md §9)."""

from __future__ import annotations

import pytest

from niwa.engine import CHANCE, IllegalAction
from niwa.engine.rulesets.sakura import GAME
from tests.games.sakura.table import play, reveal, table

COURT = 2
TRICKY = {"trickyVariant": True}


def test_two_players_add_a_court_painter_with_five_tokens() -> None:
    state = GAME.new_game(2)
    assert state.court == COURT
    assert state.garden.painters == [0, 0, 0]
    assert state.garden.tokens == [5, 5, 5]
    assert state.garden.supply == 24 + 3 * 5


def test_after_both_choose_chance_reveals_the_court_painters_card_from_the_deck() -> None:
    state = table(2, hands=[[50], [60]])
    play(state, {0: 50, 1: 60})
    assert state.to_move() == (CHANCE,)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == len(state.deck)
    assert outcomes[0][0] == {"type": "reveal", "card": min(state.deck)}


def test_an_empty_deck_is_refilled_before_the_court_card_is_revealed() -> None:
    state = table(2, hands=[[50], [60]], deck=[])
    play(state, {0: 50, 1: 60})
    assert state.to_move() == (CHANCE,)
    assert state.discard == [] and len(state.chance_outcomes()) == 60 - 10


def test_the_court_card_resolves_in_order_and_always_picks_forward() -> None:
    # Court card 10: Emperor forward or back 1, then forward or back 3: no question asked.
    state = table(2, hands=[[50], [60]])
    play(state, {0: 50, 1: 60})
    reveal(state, 10)
    assert state.played[0] == [COURT, 10, "resolved"]
    assert state.garden.painters[COURT] == 3
    assert state.garden.emperor == 7  # 10 forward (court), 50, then 60's garden action
    assert state.to_move() == (1,)  # card 60 waits for seat 1's painter direction


def test_the_court_painter_takes_a_scoring_rank() -> None:
    # Court card 11: Emperor forward 1 onto sakura S1, then the court painter forward 1.
    state = table(2, emperor=11, painters=[5, 8, 10], hands=[[40], [50]])
    play(state, {0: 40, 1: 50})
    reveal(state, 11)
    assert state.garden.tokens == [6, 7, 8]
    assert state.played == [[COURT, 11, "resolved"], [0, 40, "discarded"], [1, 50, "discarded"]]


def test_the_court_painter_cannot_win_by_default() -> None:
    state = table(2, painters=[1, 2, 3], tokens=[6, 7, 9])
    assert state.result().places == (1, 0)
    assert state.result().scores == (6.0, 7.0)


def test_with_court_can_win_the_court_painter_takes_a_place() -> None:
    state = table(2, painters=[1, 2, 3], tokens=[6, 7, 9], options={"courtCanWin": True})
    assert state.result().places == (2, 1)


def test_tricky_the_human_further_from_the_emperor_plays_the_court_card_too() -> None:
    state = table(2, emperor=8, painters=[3, 6, 0], hands=[[11, 26, 50, 53, 56], []],
                  options=TRICKY)
    assert state.supplier == 0
    actions = state.legal_actions(0)
    assert len(actions) == 20
    assert {"type": "play", "card": 11, "court_card": 26} in actions
    assert all(a["card"] != a["court_card"] for a in actions)
    assert state.legal_actions(1)[0].keys() == {"type", "card"}


def test_tricky_the_court_card_moves_the_court_painter_and_its_supplier_draws_two() -> None:
    # Cards 11, 26, 50: Emperor forward 1, then forward 1.
    state = table(2, emperor=8, painters=[3, 6, 0], hands=[[11, 26], [50]], options=TRICKY)
    play(state, {0: (26, 11), 1: 50})
    assert state.garden.painters == [4, 7, 1]  # court (11) 1; seat 0 (26) 4; seat 1 (50) 7
    assert state.draws == [0, 0, 1]


def test_tricky_a_human_on_the_gate_is_further_than_one_on_the_path() -> None:
    state = table(2, emperor=8, painters=[3, 0, 5], options=TRICKY)
    assert state.supplier == 1


def test_tricky_with_both_humans_on_the_gate_the_court_card_comes_from_the_deck() -> None:
    state = table(2, painters=[0, 0, 4], hands=[[50], [60]], options=TRICKY)
    assert state.supplier is None
    play(state, {0: 50, 1: 60})
    assert state.to_move() == (CHANCE,)
    assert state.chance_outcomes()[0][0]["type"] == "reveal"


def test_tricky_the_supplier_must_play_two_different_cards() -> None:
    state = table(2, emperor=8, painters=[3, 6, 0], hands=[[11, 26], [50]], options=TRICKY)
    with pytest.raises(IllegalAction) as e:
        state.apply({0: {"type": "play", "card": 11, "court_card": 11},
                     1: {"type": "play", "card": 50}})
    assert e.value.rule == "sakura.md §9"


def test_tricky_the_supplier_cannot_skip_the_court_card() -> None:
    state = table(2, emperor=8, painters=[3, 6, 0], hands=[[11, 26], [50]], options=TRICKY)
    with pytest.raises(IllegalAction, match="a card and a court_card"):
        state.apply({0: {"type": "play", "card": 11}, 1: {"type": "play", "card": 50}})


def test_the_court_painter_can_be_the_closest_painter_sent_back() -> None:
    # Seat 0's card 30: closest painter back 2 (the court painter on 10), then a question.
    state = table(2, emperor=11, painters=[5, 3, 10], hands=[[30], [54]])
    play(state, {0: 30, 1: 54})
    reveal(state, 56)
    assert state.to_move() == (0,)
    assert state.garden.painters == [5, 3, 8]


def test_the_court_painter_loses_a_token_when_it_bumps_the_emperor() -> None:
    # Court card 20: furthest painter forward 2 (seat 0: 4, 6), then forward 3 into him.
    state = table(2, emperor=11, painters=[3, 5, 9], hands=[[54], [59]])
    play(state, {0: 54, 1: 59})
    reveal(state, 20)
    assert state.to_move() == (0,)  # card 54 waits for seat 0
    assert state.garden.tokens == [5, 5, 4]
    assert state.garden.painters == [6, 5, 8]  # back from 11: 10, 9 (its old space), 8


def test_tricky_the_court_card_still_always_picks_forward() -> None:
    # Court card 10: Emperor forward or back 1, then forward or back 3: no question asked.
    state = table(2, emperor=8, painters=[3, 6, 0], hands=[[10, 26], [50]], options=TRICKY)
    play(state, {0: (26, 10), 1: 50})
    assert state.phase == "draw"
    assert state.garden.emperor == 11  # 10 forward, then 26 and 50
    assert state.garden.painters == [5, 7, 4]  # court 1, 2, (3 taken), 4
