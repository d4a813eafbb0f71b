"""Tsubaki's rules, each test one section of tsubaki.md. Run with the plug-in
installed beside niwa: ``pytest tests`` in this folder."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from niwa.engine import CHANCE, IllegalAction, canonical_json, load
from niwa.engine.testing import ALL_CHECKS

from niwa_tsubaki import GAME, hooks
from niwa_tsubaki.heuristic import evaluate
from niwa_tsubaki.state import TsubakiState


def dealt(players: int = 3, hand: int = 2, hook: bool = True, seed: int = 1) -> TsubakiState:
    """A game past its first deal, bidding pending."""
    state = GAME.new_game(players, {"hand": hand, "hook": hook})
    assert isinstance(state, TsubakiState)
    rng = random.Random(seed)
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: state.sample_chance(rng)})
    return state


def with_table(**fields: Any) -> TsubakiState:
    """A 2-player state in play, with the given fields changed."""
    state = dealt(players=2, hand=2)
    return TsubakiState({**state.to_json(), "phase": "play", "bids": [1, 0], **fields})


def test_the_game_is_registered_under_its_name() -> None:
    assert load("tsubaki").info.version == "tsubaki@1"


def test_the_deal_gives_each_seat_the_rounds_cards_then_turns_up_trumps() -> None:
    state = dealt(players=3, hand=4)
    assert [len(h) for h in state.hands] == [4, 4, 4]
    assert state.trump is not None and len(state.deck) == 52 - 12 - 1


def test_a_card_dealt_to_another_seat_is_not_named_in_the_move_sentence() -> None:
    state = GAME.new_game(2)
    (card, _), *_ = state.chance_outcomes()
    assert card["card"] not in state.describe(CHANCE, card)


def test_bidding_starts_left_of_the_dealer() -> None:
    assert dealt(players=3).to_move() == (1,)


def test_a_bid_above_the_hand_size_is_refused_citing_section_4() -> None:
    state = dealt(hand=2)
    with pytest.raises(IllegalAction) as refused:
        state.apply({1: {"bid": 3}})
    assert refused.value.rule == "tsubaki.md §4"


def test_the_dealer_may_not_make_the_bids_add_up_to_the_hand_size() -> None:
    state = dealt(players=3, hand=2)
    state.apply({1: {"bid": 1}})
    state.apply({2: {"bid": 0}})
    assert {"bid": 1} not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="may not bid 1"):
        state.apply({0: {"bid": 1}})


def test_without_the_hook_the_dealer_may_bid_anything() -> None:
    state = dealt(players=3, hand=2, hook=False)
    state.apply({1: {"bid": 1}})
    state.apply({2: {"bid": 0}})
    assert state.legal_actions(0) == [{"bid": n} for n in range(3)]


def test_a_card_that_fails_to_follow_suit_is_refused_citing_section_5() -> None:
    state = with_table(hands=[["2C", "3D"], ["4C", "5D"]], leader=0, trump="AS")
    state.apply({0: {"card": "2C"}})
    assert state.legal_actions(1) == [{"card": "4C"}]
    with pytest.raises(IllegalAction) as refused:
        state.apply({1: {"card": "5D"}})
    assert refused.value.rule == "tsubaki.md §5"


def test_a_trump_beats_a_higher_card_of_the_suit_led() -> None:
    state = with_table(hands=[["AC", "3D"], ["2S", "5D"]], leader=0, trump="KS")
    state.apply({0: {"card": "AC"}})
    state.apply({1: {"card": "2S"}})
    assert state.tricks_won == [0, 1] and state.leader == 1


def test_an_exact_bid_scores_ten_plus_the_bid_and_a_missed_one_nothing() -> None:
    state = with_table(hands=[["AC"], ["2C"]], leader=0, trump="KS", bids=[1, 1],
                       round=3, dealer=1)  # fmt: skip
    state.apply({0: {"card": "AC"}})
    state.apply({1: {"card": "2C"}})
    assert state.history[-1]["points"] == [11, 0]


def test_the_last_round_ends_the_game_and_the_higher_total_wins() -> None:
    state = with_table(hands=[["AC"], ["2C"]], leader=0, trump="KS", bids=[1, 1],
                       round=1, scores=[0, 5])  # fmt: skip
    state.apply({0: {"card": "AC"}})
    state.apply({1: {"card": "2C"}})
    assert state.is_over() and state.result().places == (0, 1)


def test_a_seat_sees_its_own_hand_and_no_other() -> None:
    state = dealt(players=2)
    view = state.observe(0)
    assert view["hand"] == state.hands[0]
    assert all(f'"{card}"' not in canonical_json(view) for card in state.hands[1])
    assert "hand" not in state.observe(None)


def test_the_heuristic_values_a_busted_bid_below_a_makeable_one() -> None:
    state = with_table(hands=[["AC"], ["2C"]], leader=0, trump="KS", bids=[1, 0],
                       tricks_won=[0, 1])  # fmt: skip
    mine, theirs = evaluate(state)
    assert 0 <= theirs < mine <= 1


def test_the_action_space_holds_every_legal_action_of_random_games() -> None:
    acts, chance = hooks.action_space(3)
    rng = random.Random(5)
    state = GAME.new_game(3)
    while not state.is_over():
        (seat,) = state.to_move()
        if seat == CHANCE:
            assert all(a in chance for a, _ in state.chance_outcomes())
            state.apply({CHANCE: state.sample_chance(rng)})
        else:
            legal = state.legal_actions(seat)
            assert all(a in acts for a in legal)
            state.apply({seat: rng.choice(legal)})


def test_a_card_dealt_to_another_hand_is_unseen_and_the_trump_turn_up_is_seen() -> None:
    state = GAME.new_game(2, {"hand": 1})  # seat 0 deals: seat 1, seat 0, then trumps
    seen: list[bool] = []
    while state.to_move() == (CHANCE,):
        seen.append(hooks.unseen_chance(0)(state))
        state.apply({CHANCE: state.chance_outcomes()[0][0]})
    assert seen == [True, False, False]


def test_a_pending_deal_leaves_the_heuristic_value_as_it_was() -> None:
    state = GAME.new_game(3)
    assert hooks.blind_to_chance(state)
    before = evaluate(state)
    state.apply({CHANCE: state.chance_outcomes()[-1][0]})
    assert evaluate(state) == before


def test_every_rule_the_code_cites_is_a_section_of_the_rules_page() -> None:
    here = Path(__file__).resolve().parents[1]
    sections = set(re.findall(r"^## §(\d+) ", (here / "tsubaki.md").read_text(), re.MULTILINE))
    cited = {n for p in (here / "niwa_tsubaki").glob("*.py")
             for n in re.findall(r"\bcite\((\d+)\)", p.read_text())}  # fmt: skip
    assert cited and cited <= sections


@pytest.mark.parametrize(("players", "hand"), [(5, 10), (2, 1)])
def test_the_conformance_checks_pass_at_the_smallest_and_largest_hand(
    players: int, hand: int
) -> None:
    for check in ALL_CHECKS.values():
        check(GAME, players, 3, {"hand": hand})


def test_a_move_that_is_no_move_is_still_described() -> None:
    assert "no move" in dealt().describe(1, "not-an-action")
