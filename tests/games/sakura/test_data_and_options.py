"""The bundled rules data and the game options (sakura.md §3, §4.3, §9)."""

from __future__ import annotations

from collections import Counter

import pytest

from niwa.engine import OptionError
from niwa.engine.rulesets.sakura import GAME
from niwa.engine.rulesets.sakura.rules import (
    EMP_FWD_1,
    EMP_FWD_2,
    EMP_FWD_OR_BACK_1,
    board_for,
    board_from,
    card_list,
    decks,
)


def test_the_default_deck_has_sixty_cards_numbered_one_to_sixty() -> None:
    assert sorted(decks()["default"]) == list(range(1, 61))


def test_the_default_deck_has_the_proposed_garden_counts() -> None:
    counts = Counter(c.garden for c in decks()["default"].values())
    assert counts == {"EMP_FWD_1": 20, "EMP_FWD_2": 12, "EMP_FWD_OR_BACK_1": 12,
                      "EMP_BACK_1": 6, "CLOSEST_BACK_2": 5, "FURTHEST_FWD_2": 5}


def test_the_default_deck_has_the_proposed_painter_counts() -> None:
    counts = Counter(c.painter for c in decks()["default"].values())
    assert counts == {"FWD_1": 8, "FWD_2": 10, "FWD_3": 8, "FWD_OR_BACK_1": 6,
                      "FWD_OR_BACK_2": 8, "FWD_OR_BACK_3": 6, "JUMP_AHEAD": 7,
                      "COUNT_AHEAD": 7}


def test_forty_four_cards_can_move_the_emperor_forward() -> None:
    forward = {EMP_FWD_1, EMP_FWD_2, EMP_FWD_OR_BACK_1}
    assert sum(c.garden in forward for c in decks()["default"].values()) == 44


def test_the_alternative_deck_mix_has_its_garden_counts_and_the_same_painter_actions() -> None:
    alt, default = decks()["alternative"], decks()["default"]
    assert Counter(c.garden for c in alt.values()) == {
        "EMP_FWD_1": 26, "EMP_FWD_2": 18, "EMP_FWD_OR_BACK_1": 6, "EMP_BACK_1": 4,
        "CLOSEST_BACK_2": 3, "FURTHEST_FWD_2": 3,
    }
    assert all(alt[n].painter == default[n].painter for n in default)


def test_the_deck_mix_option_chooses_the_card_list() -> None:
    state = GAME.new_game(3, {"deckMix": "alternative"})
    assert state.cards is decks()["alternative"]


def test_the_short_path_has_one_space_bridges() -> None:
    board = board_for(4)
    assert (board.length, board.torii, board.sakura) == (30, 4, (12, 21, 30))
    assert all(len(b) == 1 for b in board.bridges) and len(board.bridges) == 4


def test_the_long_path_has_three_space_bridges() -> None:
    board = board_for(5)
    assert (board.length, board.torii, board.sakura) == (38, 6, (16, 27, 38))
    assert all(len(b) == 3 for b in board.bridges) and len(board.bridges) == 4


def test_the_options_and_their_defaults() -> None:
    assert {o.name: o.default for o in GAME.info.options} == {
        "courtCanWin": False, "deckMix": "default", "trickyVariant": False,
    }
    assert GAME.info.version == "sakura@3"
    assert (GAME.info.min_players, GAME.info.max_players) == (2, 6)


def test_an_unknown_option_is_refused() -> None:
    with pytest.raises(OptionError, match="no option 'tricky'"):
        GAME.new_game(2, {"tricky": True})


def test_an_unknown_deck_mix_is_refused() -> None:
    with pytest.raises(OptionError, match="deckMix"):
        GAME.new_game(3, {"deckMix": "real"})


@pytest.mark.parametrize("players", [1, 7])
def test_sakura_is_for_two_to_six_players(players: int) -> None:
    with pytest.raises(OptionError, match="2 to 6 players"):
        GAME.new_game(players)


def test_a_snapshot_round_trips() -> None:
    state = GAME.new_game(2, {"trickyVariant": True})
    assert GAME.from_json(state.to_json()).to_json() == state.to_json()


def test_a_card_list_that_repeats_an_order_number_is_refused() -> None:
    with pytest.raises(ValueError, match="repeats an order number"):
        card_list("test", [[1, "EMP_FWD_1", "FWD_1"], [1, "EMP_FWD_2", "FWD_2"]])


def test_a_card_list_with_an_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="card 1 names an unknown action"):
        card_list("test", [[1, "EMP_FWD_3", "FWD_1"]])


def test_a_board_whose_last_sakura_is_not_the_last_space_is_refused() -> None:
    layout = {"players": [3], "length": 31, "torii": 4, "sakura": [12, 21, 30],
              "bridges": [[3], [9], [16], [25]]}
    with pytest.raises(ValueError, match="last one must be the last space"):
        board_from(layout)


def test_a_board_with_the_torii_past_the_first_sakura_is_refused() -> None:
    layout = {"players": [3], "length": 30, "torii": 14, "sakura": [12, 21, 30],
              "bridges": [[3], [9], [16], [25]]}
    with pytest.raises(ValueError, match="torii must come before"):
        board_from(layout)
