"""The Emperor challenge solo scenario (bonsai.md §8.1)."""

from __future__ import annotations

from niwa.engine.rulesets.bonsai.scoring import breakdown
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import CULTIVATE, END, cells, meditate, place, play, reveal, supply, table

BOARD = ("tool", "growth:leaf", "master:any", "helper:leaf")


def emperor() -> BonsaiState:
    return table(players=1, board=BOARD, options={"soloScenario": "emperor"})


def test_all_five_intermediate_goals_and_two_bonsai() -> None:
    s = emperor()
    assert s.goals_open == ["brown-mid", "green-mid", "orange-mid", "pink-mid", "blue-mid"]
    assert len(s.seats[0].trees) == 2 and s.seats[0].active == 0
    assert s.deck_size() == 28


def test_cultivate_grows_the_active_bonsai_then_the_marker_moves() -> None:
    s = emperor()
    supply(s, 0, leaf=1)
    play(s, CULTIVATE)
    reveal(s, "tool")
    play(s, place("leaf", 1, 1), END)
    me = s.seats[0]
    assert me.trees[0] == cells((1, 1, "leaf")) and me.trees[1] == cells()
    assert me.active == 1


def test_a_helper_places_on_the_active_bonsai_and_keeps_the_marker() -> None:
    s = emperor()
    s.seats[0].active = 1
    supply(s, 0)
    play(s, meditate(4))
    reveal(s, "tool")
    reveal(s, "parchment:leaf")  # solo: slot 3 was discarded too
    play(s, place("leaf", -1, 1), END)
    me = s.seats[0]
    assert me.trees[1] == cells((-1, 1, "leaf")) and me.active == 1


def test_goals_count_the_active_bonsai_only_and_belong_to_it() -> None:
    s = emperor()
    me = s.seats[0]
    me.trees[1] = cells((6, 2, "leaf"), (-4, 2, "leaf"))  # Kengai mid, not active
    supply(s, 0)
    play(s, CULTIVATE)
    reveal(s, "tool")
    play(s, END)
    assert s.phase == "choose" and me.active == 1  # nothing was met on bonsai 1
    play(s, CULTIVATE)
    reveal(s, "tool")
    play(s, END)
    assert s.pending_goals == ["blue-mid"]
    play(s, {"type": "claim", "goal": "blue-mid"})
    assert me.claimed == ["blue-mid"] and me.claimed_on == [1]


def test_both_bonsai_score_and_parchments_count_tiles_in_both() -> None:
    trees = [cells((1, 1, "leaf")), cells((1, 1, "leaf"), (-1, 1, "leaf"))]
    parts = breakdown(trees, ["parchment:leaf", "parchment:wood"], [])
    assert parts["leaf"] == 9 and parts["parchments"] == 3 + 2


def test_the_emperor_is_won_with_140_points_and_five_goals_split_three_and_two() -> None:
    s = emperor()
    me = s.seats[0]
    me.claimed = ["brown-mid", "green-mid", "orange-mid", "pink-mid", "blue-mid"]  # 52
    me.claimed_on = [0, 0, 0, 1, 1]
    me.trees[0] = cells(*[(2 * i + 1, 1 + 2 * (i % 2), "leaf") for i in range(30)])  # 90
    assert s.solo_won()
    me.claimed_on = [0, 0, 0, 0, 1]
    assert not s.solo_won()


def test_the_emperor_render_shows_both_bonsai_and_the_marker() -> None:
    text = emperor().render(0)
    assert "bonsai 1 (active):" in text and "bonsai 2:" in text
    assert "solo, Emperor challenge: not won (yet)" in text
