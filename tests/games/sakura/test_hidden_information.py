"""What each seat sees, determinization, narration and the text picture (sakura.md §6 #2)."""

from __future__ import annotations

import random

from niwa.engine import CHANCE, canonical_json
from niwa.engine.rulesets.sakura import GAME
from tests.games.sakura.table import play, table


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    state = table(3, hands=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], []])
    obs = state.observe(0)
    assert [c["number"] for c in obs["hand"]] == [1, 2, 3, 4, 5]
    assert obs["hand"][0] == {"number": 1, "garden": "EMP_FWD_1", "painter": "FWD_OR_BACK_3"}
    assert obs["hand_sizes"] == [5, 5, 5]
    assert "hands" not in obs and "deck" not in obs
    assert obs["deck_size"] == 45


def test_the_spectator_sees_no_hand() -> None:
    assert table(3).observe(None)["hand"] is None


def test_a_seats_view_does_not_change_with_the_cards_it_cannot_see() -> None:
    a = table(3, hands=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], []])
    b = table(3, hands=[[1, 2, 3, 4, 5], [56, 57, 58, 59, 60], []])
    assert a.observe(0) == b.observe(0)
    assert a.observe(None) == b.observe(None)
    assert a.observe(1) != b.observe(1)


def test_no_choice_is_visible_before_every_seat_has_chosen() -> None:
    # The round's choices enter the state only together, in one joint move.
    state = table(3, hands=[[11], [13], [50]])
    assert state.observe(1)["played"] == []
    assert state.observe(1)["hand_sizes"] == [5, 5, 5]
    state.apply({0: {"type": "play", "card": 11}, 1: {"type": "play", "card": 13},
                 2: {"type": "play", "card": 50}})
    assert len(state.observe(1)["played"]) == 3


def test_the_deck_order_is_no_part_of_the_state() -> None:
    state = table(3)
    assert state.to_json()["state"]["deck"] == sorted(state.deck)


def test_played_cards_are_public_once_everyone_has_chosen() -> None:
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    seen = [(e["painter"], e["card"]["number"], e["status"]) for e in state.observe(2)["played"]]
    assert seen == [(0, 11, "resolved"), (1, 13, "pending"), (2, 50, "pending")]


def test_determinize_keeps_what_the_seat_saw_and_deals_the_rest_from_unseen_cards() -> None:
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    obs = state.observe(0)
    alt = GAME.determinize(obs, 0, random.Random(7))
    assert alt.observe(0) == obs
    assert alt.hands[0] == state.hands[0]
    hidden = sorted(state.hands[1] + state.hands[2] + state.deck)
    assert sorted(alt.hands[1] + alt.hands[2] + alt.deck) == hidden


def test_determinize_samples_different_hidden_hands() -> None:
    state = table(3)
    obs = state.observe(0)
    rng = random.Random(1)
    seen = {tuple(GAME.determinize(obs, 0, rng).hands[1]) for _ in range(5)}
    assert len(seen) > 1


def test_a_draw_is_narrated_without_its_card() -> None:
    state = table(3, hands=[[50], [11], [26]])
    play(state, {0: 50, 1: 11, 2: 26})
    text = state.describe(CHANCE, {"type": "draw", "card": 1})
    assert text == "seat 0 draws a card"


def test_a_court_card_is_narrated_with_its_card() -> None:
    state = table(2, hands=[[50], [60]])
    play(state, {0: 50, 1: 60})
    text = state.describe(CHANCE, {"type": "reveal", "card": 10})
    assert text == (
        "the court painter's card is card 10 (Emperor forward or back 1; forward or back 3)"
    )


def test_plays_and_choices_are_narrated() -> None:
    state = table(3, hands=[[11], [13], [50]])
    assert state.describe(1, {"type": "play", "card": 13}) == (
        "seat 1 plays card 13 (Emperor forward or back 1; forward or back 2)"
    )
    play(state, {0: 11, 1: 13, 2: 50}, ["forward"])
    assert state.describe(1, {"type": "painter", "direction": "back"}) == (
        "seat 1 moves their painter back 2"
    )


def test_the_text_picture_shows_the_path_pieces_and_own_hand() -> None:
    state = table(3, emperor=11, painters=[8, 10, 0], hands=[[9], [], []])
    text = state.render(0)
    lines = text.splitlines()
    assert lines[1] == "gate: 2"
    assert lines[2].split() == ["1", "2", "3=", "4T", "5", "6", "7", "8", "9=", "10"]
    assert lines[3].split() == [".", ".", ".", ".", ".", ".", ".", "0", ".", "1"]
    assert lines[4].split()[:2] == ["11", "12*"]
    assert lines[5].split()[0] == "E"
    assert "your hand (seat 0): card 1 " in text
    assert "your hand" not in state.render(None)


def test_the_text_picture_lists_each_scoring_and_marks_the_scored_sakura() -> None:
    state = table(3, emperor=11, painters=[8, 10, 5], hands=[[9], [40], [50]])
    play(state, {0: 9, 1: 40, 2: 50})
    text = state.render(None)
    assert "sakura on 12 scored in round 1: seat 0 +3, seat 1 +2, seat 2 +1" in text
    assert text.splitlines()[4].split()[:2] == ["11", "12x"]


def test_every_view_starts_with_the_envelope_all_games_share() -> None:
    state = table(3, hands=[[11], [13], [50]])
    for seat in (None, 0, 1, 2):
        obs = state.observe(seat)
        assert list(obs)[:5] == ["game", "seat", "players", "phase", "to_move"]
        assert (obs["game"], obs["seat"], obs["players"]) == ("sakura@3", seat, 3)
        assert (obs["phase"], obs["to_move"]) == ("choose", [0, 1, 2])


def test_observation_and_action_keys_are_snake_case() -> None:
    state = table(2, emperor=8, painters=[3, 6, 0], options={"trickyVariant": True})

    def keys(value: object) -> set[str]:
        if isinstance(value, dict):
            # option names keep the rules data's spelling (courtCanWin)
            inner = [keys(v) for k, v in value.items() if k != "options"]
            return set(value).union(*inner)
        if isinstance(value, list):
            return set().union(*(keys(v) for v in value))
        return set()

    found = keys(state.observe(0)) | keys(state.legal_actions(0))
    assert "court_card" in found and "hand_sizes" in found and "deck_size" in found
    assert all(k == k.lower() for k in found)


def test_the_text_picture_lists_the_rounds_cards_and_marks_the_one_resolving() -> None:
    state = table(3, hands=[[11], [13], [50]])
    play(state, {0: 11, 1: 13, 2: 50})
    lines = state.render(1).splitlines()
    start = lines.index("played this round, in order:")
    assert lines[start + 1] == "  card 11 (Emperor forward 1; forward 1) by seat 0 [resolved]"
    assert lines[start + 2].endswith("by seat 1 [pending] <- resolving, garden step")
    assert lines[start + 3].endswith("by seat 2 [pending]")


def test_each_seats_observation_text_is_its_own_when_all_are_asked_in_one_position() -> None:
    state = table(3, hands=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], []])
    for seat in (0, 1, 2, None, 0):
        assert state.observe_json(seat) == canonical_json(state.observe(seat))


def test_a_clone_changed_in_place_spells_its_own_observation() -> None:
    state = table(3, hands=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], []])
    state.observe_json(0)
    other = state.clone()
    other.hands[0] = [56, 57, 58, 59, 60]  # as niwa.bots.redeal deals a clone
    other.deck.remove(56)
    assert other.observe_json(0) == canonical_json(other.observe(0))
