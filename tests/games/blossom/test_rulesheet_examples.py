"""Every worked example of the Blossom rulesheet (blossom.md §6), from scripted tables."""

from __future__ import annotations

from tests.games.blossom.table import act, cards, deal, table


def test_chrysanth_five_up_three_down_two_moved_scores_15() -> None:
    state = table(
        yards_up=["chrysanth chrysanth rose", "lily anemone", ""],
        yards_down=["", "camellia camellia", "rose"],
    )
    act(state, {"type": "arrange", "kind": "chrysanth", "count": 2})
    assert state.scores[0] == 15


def test_camellia_five_face_down_two_moved_scores_18() -> None:
    state = table(
        yards_up=["camellia camellia", "", ""],
        yards_down=["rose", "lily lily", "anemone anemone"],
    )
    act(state, {"type": "arrange", "kind": "camellia", "count": 2})
    assert state.scores[0] == 18


def test_rose_two_kinds_in_garden_two_moved_scores_9() -> None:
    state = table(yards_up=["rose rose", "", ""], garden="camellia camellia rose")
    act(state, {"type": "arrange", "kind": "rose", "count": 2})
    assert state.scores[0] == 9


def test_lily_two_in_yards_one_in_garden_two_moved_scores_12() -> None:
    state = table(yards_up=["lily lily", "", ""], garden="lily rose")
    act(state, {"type": "arrange", "kind": "lily", "count": 2})
    assert state.scores[0] == 12


def test_anemone_eleven_face_up_one_moved_scores_6() -> None:
    state = table(
        yards_up=["anemone rose", "lily lily chrysanth", ""],
        garden="rose rose camellia camellia chrysanth cherry",
    )
    act(state, {"type": "arrange", "kind": "anemone", "count": 1})
    assert state.scores[0] == 6


def test_cherry_draws_three_through_a_mid_action_refill() -> None:
    """The deck runs out after the second card, the garden becomes the new deck, the third
    card comes from it, and only then does the cherry reach the garden."""
    state = table(
        hands=["rose", "", ""],
        yards_up=["cherry", "", ""],
        garden="lily lily anemone",
        deck="camellia chrysanth",
    )
    act(state, {"type": "arrange", "kind": "cherry", "mode": "draw"})
    act(state, {"type": "cherry_draw"})
    deal(state, "camellia")
    act(state, {"type": "cherry_draw"})
    deal(state, "chrysanth")
    assert state.observe(None)["deck"] == 3, "the garden was shuffled into the new deck"
    assert state.garden == [0] * 6
    assert state.ups[0][0] == 1, "the cherry is still in the yard during its draws"
    act(state, {"type": "cherry_draw"})
    deal(state, "lily")
    assert state.hands[0] == [cards("rose camellia chrysanth lily")[k] for k in cards("")]
    assert state.garden == [1, 0, 0, 0, 0, 0], "the cherry reached the garden after the draws"
    assert state.scores[0] == 0
    assert state.actions_done == 1
