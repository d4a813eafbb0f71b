"""Blossom's turn: two actions, feeding, arranging, drawing and their limits (§3, §5, §6)."""

from __future__ import annotations

import pytest

from niwa import engine
from niwa.engine import CHANCE, IllegalAction
from tests.games.blossom.table import act, deal, table
from tests.games.fixed_rng import FixedRng


def test_a_turn_is_two_actions_then_the_next_seat_plays() -> None:
    state = table(hands=["rose lily", "", ""])
    act(state, {"type": "feed_up", "card": "rose"})
    assert state.to_move() == (0,)
    act(state, {"type": "feed_up", "card": "lily"})
    assert state.to_move() == (1,)


def test_the_same_action_may_be_taken_twice() -> None:
    state = table(hands=["rose", "", ""], garden="lily anemone")
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "camellia")
    act(state, {"type": "draw", "from": "deck"})
    deal(state, "camellia")
    assert sum(state.hands[0]) == 3


def test_feed_down_plays_any_number_of_hand_cards_face_down() -> None:
    state = table(hands=["rose rose lily", "", ""])
    act(state, {"type": "feed_down", "cards": ["rose", "lily"]})
    assert state.observe(1)["seats"][0]["yard_down"] == 2
    assert state.observe(0)["yard_down"]["rose"] == 1


def test_feed_down_may_not_push_the_yard_past_five() -> None:
    state = table(hands=["rose rose lily", "", ""], yards_up=["anemone anemone anemone", "", ""])
    legal = state.legal_actions(0)
    assert {"type": "feed_down", "cards": ["rose", "rose"]} in legal
    assert {"type": "feed_down", "cards": ["rose", "rose", "lily"]} not in legal
    with pytest.raises(IllegalAction, match="more than 5"):
        act(state, {"type": "feed_down", "cards": ["rose", "rose", "lily"]})


def test_feed_a_and_b_are_not_allowed_with_five_cards_in_the_yard() -> None:
    state = table(
        hands=["rose", "", ""],
        yards_up=["lily lily", "", ""],
        yards_down=["anemone anemone anemone", "", ""],
    )
    types = {a["type"] for a in state.legal_actions(0)}
    assert "feed_down" not in types and "feed_up" not in types
    with pytest.raises(IllegalAction, match="5 cards in the yard"):
        act(state, {"type": "feed_up", "card": "rose"})


def test_flip_turns_face_down_yard_cards_up() -> None:
    state = table(yards_down=["rose lily", "", ""])
    act(state, {"type": "flip", "cards": ["lily"]})
    assert state.observe(None)["seats"][0]["yard_up"]["lily"] == 1
    assert state.observe(None)["seats"][0]["yard_down"] == 1


def test_draw_is_not_allowed_with_five_cards_in_hand() -> None:
    state = table(hands=["rose rose lily lily anemone", "", ""], garden="camellia")
    assert not [a for a in state.legal_actions(0) if a["type"] == "draw"]
    with pytest.raises(IllegalAction, match="5 cards in hand"):
        act(state, {"type": "draw", "from": "deck"})


def test_only_one_garden_draw_per_turn() -> None:
    state = table(garden="rose lily")
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    assert {"type": "draw", "from": "garden", "kind": "lily"} not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="one garden draw"):
        act(state, {"type": "draw", "from": "garden", "kind": "lily"})
    assert {"type": "draw", "from": "deck"} in state.legal_actions(0)


def test_after_arranging_first_the_garden_draw_may_not_take_that_kind() -> None:
    state = table(yards_up=["rose", "", ""], garden="rose lily")
    act(state, {"type": "arrange", "kind": "rose", "count": 1})
    legal = state.legal_actions(0)
    assert {"type": "draw", "from": "garden", "kind": "rose"} not in legal
    assert {"type": "draw", "from": "garden", "kind": "lily"} in legal
    with pytest.raises(IllegalAction, match="kind just arranged"):
        act(state, {"type": "draw", "from": "garden", "kind": "rose"})


def test_a_garden_draw_first_then_arranging_that_kind_is_allowed() -> None:
    state = table(yards_up=["rose", "", ""], garden="rose")
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    assert {"type": "arrange", "kind": "rose", "count": 1} in state.legal_actions(0)


def test_arrange_moves_any_number_of_one_face_up_kind_to_the_garden() -> None:
    state = table(yards_up=["lily lily lily rose", "", ""])
    counts = sorted(a["count"] for a in state.legal_actions(0) if a.get("kind") == "lily")
    assert counts == [1, 2, 3]
    act(state, {"type": "arrange", "kind": "lily", "count": 2})
    assert state.observe(None)["garden"]["lily"] == 2
    assert state.observe(None)["seats"][0]["yard_up"]["lily"] == 1


def test_values_are_computed_before_the_cards_move() -> None:
    """Roses being moved are not in the garden yet, so they add no kind (§6 ROSE detail)."""
    state = table(yards_up=["rose rose rose", "", ""], garden="lily")
    act(state, {"type": "arrange", "kind": "rose", "count": 3})
    assert state.scores[0] == 9  # value 2 + 1 kind = 3; 3 x 3 = 9


def test_face_down_lilies_do_not_count_for_lily() -> None:
    state = table(yards_up=["lily", "", ""], yards_down=["", "lily lily", ""])
    act(state, {"type": "arrange", "kind": "lily", "count": 1})
    assert state.scores[0] == 3  # 2 x 1 face-up lily = 2, rounded up to 3


def test_camellia_with_fewer_than_two_face_down_scores_nothing() -> None:
    state = table(yards_up=["camellia", "", ""], yards_down=["rose", "", ""])
    act(state, {"type": "arrange", "kind": "camellia", "count": 1})
    assert state.scores[0] == 0


def test_chrysanth_with_equal_up_and_down_is_worth_two() -> None:
    state = table(yards_up=["chrysanth", "", ""], yards_down=["rose", "", ""])
    act(state, {"type": "arrange", "kind": "chrysanth", "count": 1})
    assert state.scores[0] == 3  # 2 rounded up to 3


def test_a_cherry_is_arranged_alone_for_six_points() -> None:
    state = table(yards_up=["cherry cherry", "", ""])
    cherry = [a for a in state.legal_actions(0) if a.get("kind") == "cherry"]
    assert cherry == [
        {"type": "arrange", "kind": "cherry", "mode": "points"},
        {"type": "arrange", "kind": "cherry", "mode": "draw"},
    ]
    with pytest.raises(IllegalAction, match="exactly one cherry"):
        act(state, {"type": "arrange", "kind": "cherry", "count": 2})
    act(state, {"type": "arrange", "kind": "cherry", "mode": "points"})
    assert state.scores[0] == 6
    assert state.observe(None)["garden"]["cherry"] == 1


def test_the_cherry_may_draw_fewer_than_three() -> None:
    state = table(yards_up=["cherry", "", ""])
    act(state, {"type": "arrange", "kind": "cherry", "mode": "draw"})
    act(state, {"type": "cherry_draw"})
    deal(state, "rose")
    act(state, {"type": "cherry_stop"})
    assert sum(state.hands[0]) == 1
    assert state.observe(None)["garden"]["cherry"] == 1
    assert state.actions_done == 1


def test_cherry_draws_stop_at_the_hand_limit() -> None:
    state = table(hands=["rose rose lily lily", "", ""], yards_up=["cherry", "", ""])
    act(state, {"type": "arrange", "kind": "cherry", "mode": "draw"})
    act(state, {"type": "cherry_draw"})
    deal(state, "anemone")
    assert sum(state.hands[0]) == 5
    assert state.cherry is None, "the cherry action ended by itself at 5 cards in hand"
    assert state.observe(None)["garden"]["cherry"] == 1


def test_cherry_garden_option_fills_the_hand_from_the_garden() -> None:
    state = table(
        hands=["rose rose lily", "", ""],
        yards_up=["cherry", "", ""],
        garden="anemone camellia",
        options={"cherryOverflowSource": "garden"},
    )
    act(state, {"type": "arrange", "kind": "cherry", "mode": "draw"})
    assert {"type": "cherry_take", "kind": "anemone"} in state.legal_actions(0)
    act(state, {"type": "cherry_take", "kind": "anemone"})
    act(state, {"type": "cherry_take", "kind": "camellia"})
    assert sum(state.hands[0]) == 5 and state.cherry is None


def test_illegal_actions_name_the_rule_and_change_nothing() -> None:
    state = table(hands=["rose", "", ""])
    before = state.to_json()
    with pytest.raises(IllegalAction) as err:
        act(state, {"type": "arrange", "kind": "rose", "count": 1})
    assert "blossom.md" in err.value.rule
    assert state.to_json() == before


def test_only_the_seat_to_move_may_act() -> None:
    state = table(hands=["rose", "lily", ""])
    with pytest.raises(IllegalAction):
        state.apply({1: {"type": "feed_up", "card": "lily"}})
    assert state.legal_actions(1) == []
    assert CHANCE not in state.to_move()


def test_an_action_must_match_a_legal_one_as_json_so_true_is_not_a_count_of_one() -> None:
    state = table(yards_up=["rose", "", ""])
    assert {"type": "arrange", "kind": "rose", "count": 1} in state.legal_actions(0)
    before = state.to_json()
    for spelled in (True, 1.0):
        with pytest.raises(IllegalAction):
            act(state, {"type": "arrange", "kind": "rose", "count": spelled})
    assert state.to_json() == before


def test_a_chance_outcome_must_match_a_listed_one_as_json() -> None:
    state = table(garden="rose")
    act(state, {"type": "draw", "from": "deck"})
    with pytest.raises(IllegalAction) as err:
        state.apply({CHANCE: {"card": "rose", "extra": True}})
    assert err.value.rule == "blossom.md §4, §7"


@pytest.mark.parametrize(
    "outcome", [{"card": "cherry"}, {"card": "tulip"}, {"card": 1}, ["card", "rose"], {}]
)
def test_a_drawn_card_must_be_a_kind_left_in_the_deck(outcome: object) -> None:
    state = table(garden="rose")
    state.deck = [0, 0, 0, 2, 0, 0]  # roses only
    act(state, {"type": "draw", "from": "deck"})
    before = state.to_json()
    with pytest.raises(IllegalAction) as err:
        state.apply({CHANCE: outcome})
    assert err.value.rule == "blossom.md §4, §7" and state.to_json() == before
    state.apply({CHANCE: {"card": "rose"}})
    assert state.deck[3] == 1


@pytest.mark.parametrize("outcome", [{"dealer": 3}, {"dealer": True}, {"dealer": -1}])
def test_a_drawn_dealer_must_be_one_of_the_seats(outcome: object) -> None:
    state = engine.load("blossom").new_game(3)
    with pytest.raises(IllegalAction):
        state.apply({CHANCE: outcome})
    state.apply({CHANCE: {"dealer": 2}})
    assert state.dealer == 2


def test_changing_the_returned_legal_actions_does_not_change_the_game() -> None:
    state = table(hands=["rose lily", "", ""])
    actions = state.legal_actions(0)
    first = actions[0]
    actions.clear()
    assert state.legal_actions(0)[0] == first
    act(state, first)


def test_a_move_for_a_seat_not_to_move_names_the_turn_order_rule() -> None:
    state = table(hands=["rose", "lily", ""])
    with pytest.raises(IllegalAction) as err:
        state.apply({1: {"type": "feed_up", "card": "lily"}})
    assert err.value.rule == "blossom.md §5"


def test_two_arranges_of_the_same_kind_in_one_turn_are_allowed() -> None:
    state = table(yards_up=["rose rose", "", ""], garden="lily")
    act(state, {"type": "arrange", "kind": "rose", "count": 1})  # 2 + 1 kind = 3
    act(state, {"type": "arrange", "kind": "rose", "count": 1})  # 2 + 2 kinds = 4 -> 6
    assert state.scores[0] == 3 + 6 and state.to_move() == (1,)


def test_every_action_involves_at_least_one_card() -> None:
    state = table(hands=["rose", "", ""], yards_up=["lily", "", ""], yards_down=["rose", "", ""])
    for empty in (
        {"type": "feed_down", "cards": []},
        {"type": "flip", "cards": []},
        {"type": "arrange", "kind": "lily", "count": 0},
    ):
        assert empty not in state.legal_actions(0)
        with pytest.raises(IllegalAction):
            act(state, empty)


def test_a_deck_draw_is_weighted_by_the_cards_left_of_each_kind() -> None:
    state = table(garden="rose")
    state.deck = [0, 0, 0, 2, 0, 1]  # two roses, one anemone
    act(state, {"type": "draw", "from": "deck"})
    picks = [engine.sample_chance(state, FixedRng(x)) for x in (0.0, 0.6, 0.7, 0.99)]
    assert picks == [{"card": "rose"}, {"card": "rose"}, {"card": "anemone"}, {"card": "anemone"}]


def test_a_play_decision_lists_feeds_then_flips_then_arranges_then_draws() -> None:
    # the order seeded bots and replays rely on: Feed A and B, Feed C, Arrange, Draw
    state = table(
        hands=["rose lily", "", ""], yards_up=["anemone", "", ""],
        yards_down=["camellia", "", ""], garden="cherry lily",
    )  # fmt: skip
    assert state.legal_actions(0) == [
        {"type": "feed_down", "cards": ["lily"]},
        {"type": "feed_down", "cards": ["rose"]},
        {"type": "feed_down", "cards": ["rose", "lily"]},
        {"type": "feed_up", "card": "rose"},
        {"type": "feed_up", "card": "lily"},
        {"type": "flip", "cards": ["camellia"]},
        {"type": "arrange", "kind": "anemone", "count": 1},
        {"type": "draw", "from": "deck"},
        {"type": "draw", "from": "garden", "kind": "cherry"},
        {"type": "draw", "from": "garden", "kind": "lily"},
    ]


def test_a_full_yard_lists_no_feed_a_or_b_but_still_its_flips_and_arranges() -> None:
    state = table(hands=["rose", "", ""], yards_up=["lily lily", "", ""],
                  yards_down=["rose rose anemone", "", ""], deck="")  # fmt: skip
    kinds = [a["type"] for a in state.legal_actions(0)]
    # no draw either: deck and garden are empty (§8)
    assert kinds == ["flip"] * 5 + ["arrange"] * 2  # {0-2 roses} x {0-1 anemone} less none
