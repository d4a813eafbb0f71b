"""Set-up by player count (bonsai.md §2.1, §7.1), Tokonoma (§9), options and pot flipping."""

from __future__ import annotations

import pytest

from niwa.engine import CHANCE, OptionError
from niwa.engine.rulesets.bonsai import GAME
from niwa.engine.rulesets.bonsai.rules import CARD_KINDS, deck_for, key
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import table

PARCHMENTS = [k for k, card in CARD_KINDS.items() if card.type == "parchment"]


def fresh(players: int, **options: object) -> BonsaiState:
    s = GAME.new_game(players, options)
    assert isinstance(s, BonsaiState)
    return s


@pytest.mark.parametrize(("players", "size"), [(1, 32), (2, 32), (3, 43), (4, 47)])
def test_deck_size_by_player_count(players: int, size: int) -> None:
    assert fresh(players).deck_size() == size


def test_the_full_deck_holds_each_card_type_in_its_number() -> None:
    by_type: dict[str, int] = {}
    for kind, n in fresh(4).pool.items():
        by_type[CARD_KINDS[kind].type] = by_type.get(CARD_KINDS[kind].type, 0) + n
    assert by_type == {"tool": 6, "growth": 14, "master": 13, "helper": 7, "parchment": 7}


def test_starting_tiles_by_seat() -> None:
    s = fresh(4)
    assert [seat.supply for seat in s.seats] == [
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [1, 1, 1, 0],
        [1, 1, 1, 1],
    ]


def test_every_bonsai_starts_as_the_bud() -> None:
    assert all(seat.tree == {key(0, 0): 0} for seat in fresh(3).seats)


def test_set_up_reveals_four_cards_then_the_first_player_chooses() -> None:
    s = table(players=2)
    assert s.to_move() == (0,) and s.deck_size() == 28


def test_reveal_odds_follow_the_deck_multiset() -> None:
    s = fresh(2, useGoals=False)
    odds = {a["card"]: p for a, p in s.chance_outcomes()}
    assert odds["tool"] == pytest.approx(3 / 32)
    assert odds["parchment:leaf"] == pytest.approx(1 / 32)
    assert sum(odds.values()) == pytest.approx(1)


def test_tokonoma_puts_every_parchment_in_the_top_half() -> None:
    s = fresh(4, tokonoma=True)
    assert sum(s.top_parchments.values()) == 7 and s.top_others == 20
    s.apply({CHANCE: s.chance_outcomes()[0][0]})  # the goal colours
    odds = {a["card"]: p for a, p in s.chance_outcomes()}
    assert odds["parchment:wood"] == pytest.approx(1 / 27)
    assert sum(p for k, p in odds.items() if k.startswith("parchment")) == pytest.approx(7 / 27)


def test_tokonoma_with_an_odd_remainder_puts_the_larger_half_at_the_bottom() -> None:
    s = fresh(2, tokonoma=True)
    bottom = sum(s.pool.values()) - s.top_others
    assert (s.top_others, bottom) == (12, 13)


def test_tokonoma_bottom_pile_holds_no_parchment() -> None:
    s = fresh(3, tokonoma=True, useGoals=False)
    s.top_parchments, s.top_others = {}, 0  # the top pile is used up
    assert not any(a["card"].startswith("parchment") for a, _ in s.chance_outcomes())


def test_an_unknown_option_is_refused() -> None:
    with pytest.raises(OptionError, match="no option 'goals'"):
        GAME.new_game(2, {"goals": True})


def test_an_unknown_solo_level_is_refused() -> None:
    with pytest.raises(OptionError, match="soloLevel"):
        GAME.new_game(1, {"soloLevel": "master"})


def test_five_players_are_refused() -> None:
    with pytest.raises(OptionError, match="1 to 4 players"):
        GAME.new_game(5)


def test_the_pot_cannot_be_flipped_by_default() -> None:
    assert {"type": "flip_pot"} not in table().legal_actions(0)


def test_a_bare_pot_may_be_flipped_once_with_allow_pot_flip() -> None:
    s = table(options={"allowPotFlip": True})
    assert s.legal_actions(0)[0] == {"type": "flip_pot"}
    s.apply({0: {"type": "flip_pot"}})
    assert s.seats[0].flipped and {"type": "flip_pot"} not in s.legal_actions(0)
    assert key(-6, 0) in s.seats[0].pot and key(6, 0) not in s.seats[0].pot


def test_three_players_leave_out_the_four_four_player_cards() -> None:
    missing = {k: n - deck_for(3).get(k, 0) for k, n in deck_for(4).items()}
    assert {k: n for k, n in missing.items() if n} == {
        "tool": 1,
        "growth:wood": 1,
        "growth:fruit": 1,
        "master:leaf+flower+flower": 1,
    }


def test_two_players_also_leave_out_the_eleven_three_player_cards() -> None:
    missing = {k: n - deck_for(2).get(k, 0) for k, n in deck_for(3).items()}
    assert {k: n for k, n in missing.items() if n} == {
        "tool": 2,
        "growth:wood": 1,
        "growth:leaf": 2,
        "growth:flower": 1,
        "master:any": 1,
        "master:wood+leaf": 2,
        "master:wood+leaf+flower": 1,
        "master:wood+leaf+fruit": 1,
    }
    assert deck_for(1) == deck_for(2)


def test_the_options_carry_the_rules_data_names_and_defaults() -> None:
    schema = {o.name: o.default for o in GAME.info.options}
    assert schema == {
        "useGoals": True,
        "tokonoma": False,
        "allowPotFlip": False,
        "soloScenario": "none",
        "soloLevel": "gakusei",
    }


def test_solo_scenarios_whose_goal_tiles_are_unknown_are_refused() -> None:
    with pytest.raises(OptionError, match="soloScenario"):
        GAME.new_game(1, {"soloScenario": "flourishing-spring"})


def test_tokonoma_set_up_reveals_come_from_the_top_pile() -> None:
    s = fresh(2, tokonoma=True, useGoals=False)
    for card in ("parchment:wood", "tool", "parchment:leaf", "growth:leaf"):
        s.apply({CHANCE: {"type": "reveal", "card": card}})
    drawn = ("parchment:wood", "parchment:leaf")
    assert s.top_parchments == {k: 1 for k in PARCHMENTS if k not in drawn}
    assert s.top_others == 12 - 2 and sum(s.pool.values()) == 25 - 2
