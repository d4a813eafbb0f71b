"""The end trigger (bonsai.md §7.2) and the solo mode (§8)."""

from __future__ import annotations

from niwa.engine import CHANCE
from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import CULTIVATE, END, cells, meditate, play, reveal, table

BOARD = ("tool", "growth:leaf", "master:any", "helper:leaf")


def test_the_last_card_revealed_gives_everyone_one_more_turn_trigger_player_last() -> None:
    s = table(players=3, board=BOARD)
    s.pool = {"parchment:wood": 1}
    play(s, CULTIVATE, END)  # seat 0
    play(s, meditate(1))  # seat 1 takes the Tool; the last card is revealed
    reveal(s, "parchment:wood")
    assert s.end_triggered and s.deck_size() == 0
    order = []
    while not s.is_over():
        order.append(s.current)
        play(s, CULTIVATE, END)
    assert order == [2, 0, 1]


def test_the_game_goes_on_while_the_deck_lasts() -> None:
    s = table(players=2, board=BOARD)
    s.pool = {"parchment:wood": 1, "tool": 1}
    play(s, meditate(1))
    reveal(s, "tool")
    assert not s.end_triggered


def test_solo_starts_with_wood_and_leaf_and_six_goal_tiles() -> None:
    s = table(players=1, colours=("brown", "pink", "blue"))
    assert s.seats[0].supply == [1, 1, 0, 0]
    assert s.goals_open == [
        "brown-low",
        "brown-high",
        "pink-low",
        "pink-high",
        "blue-low",
        "blue-high",
    ]
    assert s.deck_size() == 32 - 4


def test_solo_goals_are_compulsory() -> None:
    state = GAME.new_game(1, {"useGoals": False})
    assert state.to_move() == (CHANCE,)
    assert state.chance_outcomes()[0][0]["type"] == "goals"


def test_solo_meditate_discards_the_card_left_of_the_one_taken() -> None:
    s = table(players=1, board=BOARD)
    play(s, meditate(3))
    assert s.discards == ["growth:leaf"]
    assert s.board == [None, None, "tool", "helper:leaf"]
    reveal(s, "parchment:leaf")
    reveal(s, "parchment:fruit")
    assert s.board == ["parchment:fruit", "parchment:leaf", "tool", "helper:leaf"]


def test_solo_meditate_on_slot_1_burns_the_top_deck_card() -> None:
    s = table(players=1, board=BOARD)
    play(s, meditate(1))
    assert s.burn and s.to_move() == (CHANCE,)
    assert s.describe(CHANCE, {"type": "reveal", "card": "tool"}).endswith("revealed and discarded")
    reveal(s, "tool")
    assert s.discards == ["tool"] and s.board == [None, "growth:leaf", "master:any", "helper:leaf"]
    reveal(s, "parchment:leaf")
    assert s.board[0] == "parchment:leaf"
    assert s.seats[0].cards == ["tool"]


def test_solo_cultivate_discards_the_card_farthest_from_the_deck() -> None:
    s = table(players=1, board=BOARD)
    play(s, CULTIVATE)
    assert s.discards == ["helper:leaf"]
    assert s.board == [None, "tool", "growth:leaf", "master:any"]
    reveal(s, "parchment:leaf")
    assert s.phase == "cultivate"


def test_solo_the_last_card_revealed_gives_one_last_turn() -> None:
    s = table(players=1, board=BOARD)
    s.pool = {"parchment:wood": 1}
    play(s, CULTIVATE)
    reveal(s, "parchment:wood")
    play(s, END)
    assert s.end_triggered and not s.is_over()
    play(s, CULTIVATE, END)
    assert s.is_over()


def test_solo_a_burned_last_card_also_triggers_the_end() -> None:
    s = table(players=1, board=BOARD)
    s.pool = {"parchment:wood": 1}
    play(s, meditate(1))
    reveal(s, "parchment:wood")
    assert s.end_triggered and s.discards == ["parchment:wood"]
    assert s.board == [None, "growth:leaf", "master:any", "helper:leaf"]


def won_state(level: str, leaves: int) -> BonsaiState:
    s = table(players=1, options={"soloLevel": level})
    s.seats[0].claimed = ["brown-low", "green-low", "blue-low"]  # 5 + 6 + 7 = 18
    s.seats[0].tree = cells(*[(2 * i + 1, 1 + 2 * (i % 2), "leaf") for i in range(leaves)])
    return s


def test_solo_win_needs_three_goals_and_the_level_points() -> None:
    assert won_state("gakusei", 21).solo_won()  # 63 + 18 = 81 >= 80
    assert not won_state("gakusei", 20).solo_won()  # 78
    assert not won_state("senmon", 21).solo_won()  # needs 100


def test_solo_win_needs_three_goals() -> None:
    s = won_state("gakusei", 30)
    s.seats[0].claimed.pop()
    assert not s.solo_won()


def test_solo_levels_are_80_100_120_140() -> None:
    targets = {}
    for level in ("gakusei", "senmon", "sensei", "yusha"):
        obs = table(players=1, options={"soloLevel": level}).observe(0)
        targets[level] = obs["solo"]["target"]
    assert targets == {"gakusei": 80, "senmon": 100, "sensei": 120, "yusha": 140}


def test_solo_narration_names_the_discarded_card() -> None:
    s = table(players=1, board=BOARD)
    assert s.describe(0, meditate(3)).endswith(", discarding Growth (leaf)")
    assert s.describe(0, meditate(1)).endswith(", burning the top deck card")
    assert s.describe(0, CULTIVATE) == "seat 0 cultivates, discarding Helper (any + leaf)"


def test_with_four_players_the_trigger_player_plays_the_last_turn() -> None:
    s = table(players=4, board=BOARD)
    s.pool = {"parchment:wood": 1}
    play(s, CULTIVATE, END, CULTIVATE, END)  # seats 0 and 1
    play(s, meditate(1))  # seat 2 takes the Tool; the last card is revealed
    reveal(s, "parchment:wood")
    order = []
    while not s.is_over():
        order.append(s.current)
        play(s, CULTIVATE, END)
    assert order == [3, 0, 1, 2]


def test_the_final_round_still_offers_the_cards_left_on_the_board() -> None:
    s = table(players=2, board=BOARD)
    s.pool = {}
    s.end_triggered, s.turns_left = True, 1
    play(s, meditate(4))
    play(s, END)  # the Helper's placements
    assert s.board == [None, "tool", "growth:leaf", "master:any"]
    assert [a["slot"] for a in s.legal_actions(1) if a["type"] == "meditate"] == [2, 2, 3, 4]


def test_solo_meditate_on_slot_1_with_an_empty_deck_burns_nothing() -> None:
    s = table(players=1, board=BOARD)
    s.pool = {}
    play(s, meditate(1))
    assert s.discards == [] and s.board == [None, "growth:leaf", "master:any", "helper:leaf"]
    assert s.phase == "choose"  # the Tool acted, nothing was met, the next turn began


def test_solo_result_is_the_single_score_in_first_place() -> None:
    s = won_state("gakusei", 21)
    s.phase = "over"
    assert s.result().scores == (81.0,) and s.result().places == (0,)
