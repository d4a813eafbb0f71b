"""Goal tiles: set-up (bonsai.md §4.2), claiming (§4.3) and the goal tests (§6.5)."""

from __future__ import annotations

import pytest

from niwa.engine import IllegalAction
from niwa.engine.rulesets.bonsai.rules import GOALS
from niwa.engine.rulesets.bonsai.scoring import goal_met
from niwa.engine.rulesets.bonsai.state import BonsaiState
from niwa.engine.rulesets.bonsai.tree import kengai_levels

from .table import CULTIVATE, END, cells, meditate, place, play, reveal, supply, table, tree


def met(goal: str, t: dict[int, int], flipped: bool = False) -> bool:
    return goal_met(GOALS[goal], t, flipped)


def claim(goal: str) -> dict[str, str]:
    return {"type": "claim", "goal": goal}


def renounce(goal: str) -> dict[str, str]:
    return {"type": "renounce", "goal": goal}


# --- set-up -------------------------------------------------------------------------
def test_three_colours_with_all_three_tiles_for_three_or_four_players() -> None:
    s = table(players=3, colours=("brown", "pink", "blue"))
    assert s.goals_open == [
        "brown-low", "brown-mid", "brown-high",
        "pink-low", "pink-mid", "pink-high",
        "blue-low", "blue-mid", "blue-high",
    ]  # fmt: skip


def test_one_or_two_players_leave_out_the_middle_tiles() -> None:
    s = table(players=2, colours=("green", "orange", "pink"))
    assert s.goals_open == [
        "green-low",
        "green-high",
        "orange-low",
        "orange-high",
        "pink-low",
        "pink-high",
    ]


def test_the_goal_colours_are_a_chance_draw_of_three_of_five() -> None:
    from niwa.engine.rulesets.bonsai import GAME

    outcomes = GAME.new_game(2).chance_outcomes()
    assert len(outcomes) == 10 and all(abs(p - 0.1) < 1e-12 for _, p in outcomes)


def test_without_goals_no_tile_is_laid_out() -> None:
    s = table(options={"useGoals": False})
    assert s.goals_open == []


# --- goal tests ---------------------------------------------------------------------
def test_bujin_ji_counts_wood_with_the_bud() -> None:
    trunk = cells(*[(u, v, "wood") for u, v in [(1, 1), (2, 2), (1, 3), (2, 4), (1, 5), (2, 6)]])
    assert not met("brown-low", trunk)
    trunk[next(iter(cells((1, 7, "wood")).keys() - cells().keys()))] = 0
    assert met("brown-low", trunk)  # 8 wood tiles, bud included


def test_moyogi_needs_the_leaves_in_one_group() -> None:
    split = cells(
        (1, 1, "wood"), (-1, 1, "wood"),
        (3, 1, "leaf"), (2, 2, "leaf"), (4, 2, "leaf"),
        (-3, 1, "leaf"), (-2, 2, "leaf"),
    )  # fmt: skip
    assert not met("green-low", split)  # 5 leaves, in groups of 3 and 2
    joined = dict(split)
    joined.update(cells((0, 2, "leaf")))
    assert met("green-low", joined)


def test_chokkan_counts_fruit() -> None:
    t = cells((1, 1, "leaf"), (-1, 1, "leaf"), (0, 2, "fruit"), (4, 2, "fruit"))
    assert not met("orange-low", t)
    t.update(cells((-4, 2, "fruit")))
    assert met("orange-low", t)


def test_shakan_counts_flowers_past_one_and_the_same_side() -> None:
    right = cells((6, 2, "flower"), (8, 2, "flower"), (7, 3, "flower"))
    assert met("pink-low", right)
    split = cells((6, 2, "flower"), (8, 2, "flower"), (-4, 2, "flower"), (-6, 2, "flower"))
    assert not met("pink-low", split)  # two per side


def test_shakan_counts_flowers_below_the_pot_past_the_line() -> None:
    assert met("pink-low", cells((6, -2, "flower"), (7, -3, "flower"), (9, 1, "flower")))


def test_kengai_low_needs_a_tile_past_the_gold_crack_side() -> None:
    assert met("blue-low", cells((6, 2, "leaf")))
    assert not met("blue-low", cells((-4, 2, "leaf")))  # the short side, no crack
    assert not met("blue-low", cells((5, 1, "leaf")))  # stops short of the line


def test_kengai_mid_needs_tiles_past_both_sides() -> None:
    assert met("blue-mid", cells((6, 2, "leaf"), (-4, 2, "wood")))
    assert not met("blue-mid", cells((6, 2, "leaf"), (8, 2, "wood")))


def test_kengai_high_needs_one_side_and_below_the_other_side() -> None:
    assert met("blue-high", cells((6, 2, "leaf"), (-4, -2, "wood")))
    assert met("blue-high", cells((-4, 2, "leaf"), (6, -2, "wood")))  # the mirror


def test_kengai_high_refuses_a_tile_directly_under_the_pot() -> None:
    assert not met("blue-high", cells((6, 2, "leaf"), (0, -4, "wood")))


def test_kengai_high_refuses_two_tiles_that_are_both_below() -> None:
    t = cells((6, -2, "leaf"), (-4, -2, "wood"))
    assert met("blue-mid", t)
    assert not met("blue-high", t)  # neither may serve as the protruding tile


def test_a_flipped_pot_moves_the_gold_crack_to_the_left() -> None:
    assert met("blue-low", cells((-6, 2, "leaf")), flipped=True)
    assert not met("blue-low", cells((6, 2, "leaf")), flipped=True)
    assert not met("blue-low", cells((-4, 2, "leaf")), flipped=True)


# --- claiming -----------------------------------------------------------------------
MARTHA = """
  4 |             Le
  3 |           Wo  Le
  2 |         Wo  Le
  1 |           Wo  Le
  0 | ~~  ~~  Wo  ~~  ~~  ~~
"""


def martha_turn() -> BonsaiState:
    """The rulebook's goal example: Martha (seat 0) has 4 leaves and adds 2; Bryce
    (seat 1) already holds the 7-leaf tile."""
    s = table(players=3, colours=("brown", "green", "blue"))
    s.goals_open.remove("green-mid")
    s.seats[1].claimed = ["green-mid"]
    s.seats[0].tree = tree(MARTHA)
    supply(s, 0, leaf=2)
    play(s, CULTIVATE, place("leaf", 0, 4), place("leaf", -1, 3), END)
    return s


def test_goal_example_of_the_rulebook() -> None:
    s = martha_turn()
    assert s.phase == "claim"
    assert s.legal_actions(0) == [claim("green-low"), renounce("green-low")]


def test_a_claimed_tile_leaves_the_table() -> None:
    s = martha_turn()
    play(s, claim("green-low"))
    assert s.seats[0].claimed == ["green-low"]
    assert "green-low" not in s.goals_open
    assert s.current == 1


def test_a_renounced_tile_is_closed_to_that_player_only() -> None:
    s = martha_turn()
    play(s, renounce("green-low"))
    assert "green-low" in s.goals_open
    me = s.seats[0]
    assert not s.eligible(me, "green-low")
    assert s.eligible(me, "green-high")
    assert s.eligible(s.seats[2], "green-low")


def test_a_renounced_tile_is_not_offered_again() -> None:
    s = martha_turn()
    play(s, renounce("green-low"))
    play(s, CULTIVATE, END, CULTIVATE, END)
    play(s, CULTIVATE, END)
    assert s.current == 1 and s.phase == "choose"


def test_only_one_tile_per_colour() -> None:
    s = table(players=2, colours=("brown", "green", "orange"))
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"))
    supply(s, 0, fruit=3)
    s.seats[0].tree.update(cells((3, 1, "leaf"), (4, 2, "leaf"), (-3, 1, "leaf"), (-4, 2, "leaf")))
    s.seats[0].cards = ["growth:fruit", "growth:fruit"]
    play(s, CULTIVATE, place("fruit", 0, 2), place("fruit", 5, 1), place("fruit", -5, 1), END)
    assert s.pending_goals == ["green-low", "orange-low"]
    play(s, claim("green-low"), claim("orange-low"))
    assert s.seats[0].claimed == ["green-low", "orange-low"]
    assert not s.eligible(s.seats[0], "orange-high")


LEFT_AND_BELOW = [(1, 1), (3, 1), (5, 1), (-1, 1), (-3, 1), (-5, 1), (-6, 0), (-5, -1), (-4, -2)]


def kengai_turn() -> BonsaiState:
    """Wood grows down past the left foot of the pot; one wood tile then crosses the
    right line above the pot: Kengai low and high are met together."""
    s = table(players=2, colours=("green", "orange", "blue"))
    s.seats[0].tree = cells(*[(u, v, "wood") for u, v in LEFT_AND_BELOW])
    supply(s, 0, wood=1)
    play(s, CULTIVATE, place("wood", 6, 2), END)
    return s


def test_renouncing_the_easy_tile_lets_the_player_claim_the_hard_one_at_once() -> None:
    s = kengai_turn()
    assert s.pending_goals == ["blue-low", "blue-high"]
    play(s, renounce("blue-low"))
    assert s.legal_actions(0) == [claim("blue-high"), renounce("blue-high")]
    play(s, claim("blue-high"))
    assert s.seats[0].claimed == ["blue-high"] and s.seats[0].renounced == ["blue-low"]


def test_claiming_the_easy_tile_closes_the_hard_one_met_in_the_same_turn() -> None:
    s = kengai_turn()
    play(s, claim("blue-low"))
    assert s.current == 1 and s.phase == "choose"


def test_a_goal_met_through_a_helper_is_decided_on_the_meditate_turn() -> None:
    s = table(players=2, colours=("brown", "green", "blue"), board=(
        "growth:wood", "growth:flower", "growth:fruit", "helper:wood"))  # fmt: skip
    s.seats[0].tree = cells((5, 1, "wood"))
    supply(s, 0, wood=1)
    play(s, meditate(4))
    reveal(s, "tool")
    play(s, place("wood", 6, 2), END)
    assert s.phase == "claim" and s.pending_goals == ["blue-low"]


def test_claimed_goals_are_kept_when_tiles_are_removed() -> None:
    s = table(players=2, colours=("brown", "green", "blue"))
    s.seats[0].claimed = ["blue-low"]
    s.goals_open.remove("blue-low")
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"))
    play(s, {"type": "remove", "cell": [1, 1]})
    assert s.seats[0].claimed == ["blue-low"]
    assert s.scores()[0]["goals"] == 7


def test_the_pot_lines_protrude_right_from_u_6_left_from_u_minus_4_below_from_v_minus_2() -> None:
    def levels(*uvs: tuple[int, int]) -> dict[str, bool]:
        return kengai_levels(cells(*[(u, v, "wood") for u, v in uvs]), False)

    assert [levels((u, 2))["low"] for u in (4, 5, 6, 7)] == [False, False, True, True]
    assert [levels((6, 2), (u, 2))["mid"] for u in (-2, -3, -4, -5)] == [False, False, True, True]
    assert levels((6, 2), (-4, -2))["high"] and levels((6, 2), (-5, -3))["high"]
    assert not levels((6, 2), (-5, -1))["high"]  # row -1 is not below the bottom line


def test_kengai_low_counts_a_tile_below_the_pot_past_the_gold_crack_line() -> None:
    assert met("blue-low", cells((6, -2, "wood")))


def test_shakan_on_a_flipped_pot_counts_the_mirrored_side_lines() -> None:
    flowers = cells((4, 2, "flower"), (5, 3, "flower"), (6, 2, "flower"))
    assert met("pink-low", flowers, flipped=True)  # all past the mirrored right line u >= 4
    assert not met("pink-low", flowers)  # only (6, 2) protrudes from the plain pot


def test_a_goal_claimed_by_another_player_is_not_offered() -> None:
    s = martha_turn()
    play(s, claim("green-low"))  # seat 0 takes it
    six_leaves = dict(s.seats[0].tree)
    s.seats[2].tree = six_leaves  # seat 2 holds no green tile yet
    play(s, CULTIVATE, END)  # seat 1
    play(s, CULTIVATE, END)  # seat 2 meets green-low, which is gone
    assert s.current == 0 and s.phase == "choose"
    s.goals_open.append("green-low")  # were it still on the table, seat 2 would be asked
    play(s, CULTIVATE, END, CULTIVATE, END, CULTIVATE, END)
    assert s.phase == "claim" and s.pending_goals == ["green-low"]


def test_a_goal_met_must_be_decided_before_anything_else() -> None:
    s = martha_turn()
    refused = [CULTIVATE, {"type": "discard", "tile": "leaf"}, claim("green-high")]
    for action in refused:
        assert action not in s.legal_actions(0)
    with pytest.raises(IllegalAction) as e:
        play(s, claim("green-high"))
    assert e.value.rule == "bonsai.md §4.3"
