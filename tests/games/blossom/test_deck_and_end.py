"""Set-up, deck refills, the end of the game and the tie-breaks (§2, §4, §7–§9)."""

from __future__ import annotations

import random

import pytest

from niwa import engine
from niwa.engine import CHANCE, OptionError
from niwa.engine.rulesets.blossom.rules import FULL_DECK, KINDS
from tests.games.blossom.table import act, cards, deal, table


def _set_up(players: int, **options: object) -> engine.State:
    state = engine.load("blossom").new_game(players, options)
    rng = random.Random(5)
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: engine.sample_chance(state, rng)})
    return state


@pytest.mark.parametrize(("players", "deck"), [(2, 20), (3, 18), (4, 16)])
def test_set_up_removes_cards_and_deals_three_each_and_five_to_the_garden(
    players: int, deck: int
) -> None:
    obs = _set_up(players).observe(None)
    assert obs["removed"] == {2: 2, 3: 1, 4: 0}[players]
    assert [s["hand"] for s in obs["seats"]] == [3] * players
    assert sum(obs["garden"].values()) == 5
    assert obs["deck"] == deck
    assert obs["phase"] == "play" and obs["current"] == obs["dealer"]


def test_the_dealer_option_chooses_who_starts() -> None:
    assert _set_up(3, dealer=2).observe(None)["current"] == 2


def test_bad_options_and_player_counts_are_clear_errors() -> None:
    game = engine.load("blossom")
    with pytest.raises(OptionError, match="2 to 4 players"):
        game.new_game(5)
    with pytest.raises(OptionError, match="no option 'colour'"):
        game.new_game(3, {"colour": "red"})
    with pytest.raises(OptionError, match="dealer"):
        game.new_game(2, {"dealer": 3})
    with pytest.raises(OptionError, match="one of deck, garden"):
        game.new_game(2, {"cherryOverflowSource": "sky"})


def test_drawing_the_last_deck_card_turns_the_garden_into_the_deck() -> None:
    state = table(garden="rose lily", deck="anemone")
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "anemone")
    obs = state.observe(None)
    assert obs["deck"] == 2 and sum(obs["garden"].values()) == 0


def test_with_an_empty_garden_the_deck_stays_empty_and_refills_on_the_next_draw() -> None:
    state = table(yards_up=["rose", "", ""], garden="", deck="anemone")
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "anemone")
    assert state.observe(None)["deck"] == 0
    act(state, {"type": "arrange", "kind": "rose", "count": 1})
    # seat 1's turn: the deck is empty, the garden holds the rose: drawing refills first
    act(state, {"type": "draw", "from": "deck"})
    assert state.observe(None)["garden"]["rose"] == 0
    deal(state, "rose")
    assert state.hands[1][3] == 1


def test_draw_is_illegal_when_deck_and_garden_are_both_empty() -> None:
    state = table(4, hands=["rose", "", "", ""], garden="", deck="")
    assert not [a for a in state.legal_actions(0) if a["type"] == "draw"]


def test_reaching_66_finishes_the_round() -> None:
    state = table(yards_up=["cherry", "", ""], hands=["", "rose", "lily"], scores=[60, 0, 0])
    act(state, {"type": "arrange", "kind": "cherry", "mode": "points"})
    assert state.observe(None)["end_triggered"]
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "rose")
    for seat in (1, 2):
        assert state.to_move() == (seat,)
        act(state, {"type": "draw", "from": "deck"})
        deal(state, "camellia")
        act(state, {"type": "draw", "from": "deck"})
        deal(state, "camellia")
    assert state.is_over()
    assert state.result().places[0] == 0


def test_the_seat_right_of_the_starter_reaching_66_ends_the_game_after_its_turn() -> None:
    state = table(yards_up=["", "", "cherry"], hands=["", "", "rose"], scores=[0, 0, 63], current=2)
    act(state, {"type": "arrange", "kind": "cherry", "mode": "points"})
    act(state, {"type": "feed_up", "card": "rose"})
    assert state.is_over()
    assert state.result().scores == (0.0, 0.0, 69.0)


def test_a_score_tie_goes_to_fewer_cards_in_hand_and_yard() -> None:
    state = table(
        hands=["rose", "rose lily", ""], yards_up=["", "", "anemone"], scores=[66, 66, 30]
    )
    state.phase = "over"
    assert state.result().places == (0, 1, 2)


def test_a_full_tie_is_shared() -> None:
    state = table(hands=["rose", "lily", ""], scores=[66, 66, 30])
    state.phase = "over"
    assert state.result().places == (0, 0, 2)


def test_mulligan_returns_cards_and_deals_as_many_back() -> None:
    state = engine.load("blossom").new_game(2, {"mulligan": True, "dealer": 0})
    rng = random.Random(2)
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: engine.sample_chance(state, rng)})
    assert state.observe(None)["phase"] == "mulligan"
    assert state.to_move() == (1,), "the mulligan starts left of the dealer"
    first = state.legal_actions(1)[-1]
    state.apply({1: first})
    assert state.observe(0)["seats"][1]["returned"] == len(first["cards"])
    state.apply({0: {"type": "mulligan", "cards": []}})
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: engine.sample_chance(state, rng)})
    obs = state.observe(None)
    assert [s["hand"] for s in obs["seats"]] == [3, 3]
    assert sum(obs["garden"].values()) == 5 and obs["phase"] == "play"


def test_the_box_holds_3_cherries_and_6_of_each_other_kind() -> None:
    assert dict(zip(KINDS, FULL_DECK, strict=True)) == {
        "cherry": 3,
        "chrysanth": 6,
        "camellia": 6,
        "rose": 6,
        "lily": 6,
        "anemone": 6,
    }


def test_a_random_dealer_is_drawn_evenly_among_the_seats() -> None:
    state = engine.load("blossom").new_game(4)
    assert state.chance_outcomes() == [({"dealer": s}, 1 / 4) for s in range(4)]


def test_cards_removed_at_set_up_never_return_with_a_refill() -> None:
    state = table(2, garden="rose lily", deck="anemone")
    removed = state.observe(None)["removed"]
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "anemone")
    assert state.deck == [cards("rose lily")[k] for k in KINDS]
    assert state.observe(None)["removed"] == removed


def test_the_score_is_not_capped() -> None:
    """blossom.md §2: five camellias with 14 face-down yard cards score 5 x 28 = 140 -> 141."""
    state = table(
        4,
        yards_up=["camellia camellia camellia camellia camellia", "", "", ""],
        yards_down=[
            "",
            "rose rose rose lily lily",
            "lily lily anemone anemone anemone",
            "rose chrysanth chrysanth chrysanth",
        ],
        scores=[60, 0, 0, 0],
    )
    act(state, {"type": "arrange", "kind": "camellia", "count": 5})
    assert state.scores[0] == 60 + 141


def test_a_seat_with_no_legal_action_forfeits_its_turn() -> None:
    """blossom.md §5 PROPOSED: seat 1 holds nothing and there is nothing to draw."""
    state = table(4, hands=["rose lily", "", "anemone", "anemone"], garden="", deck="")
    act(state, {"type": "feed_up", "card": "rose"})
    act(state, {"type": "feed_up", "card": "lily"})
    assert state.to_move() == (2,)


def test_with_deck_and_garden_empty_the_cherry_draws_nothing() -> None:
    state = table(4, yards_up=["cherry", "", "", ""], garden="", deck="")
    act(state, {"type": "arrange", "kind": "cherry", "mode": "draw"})
    assert state.cherry is None and sum(state.hands[0]) == 0
    assert state.observe(None)["garden"]["cherry"] == 1 and state.scores[0] == 0
