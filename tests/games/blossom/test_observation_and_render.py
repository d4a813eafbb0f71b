"""What each seat sees (§3) and the text rendering."""

from __future__ import annotations

import random

from niwa.engine.rulesets.blossom import GAME
from tests.games.blossom.table import act, table


def test_hands_and_face_down_cards_are_seen_only_by_their_owner() -> None:
    state = table(hands=["rose lily", "anemone", ""], yards_down=["camellia", "", ""])
    mine, theirs, public = state.observe(0), state.observe(1), state.observe(None)
    assert mine["hand"]["rose"] == 1 and mine["yard_down"]["camellia"] == 1
    assert theirs["hand"]["rose"] == 0 and theirs["seats"][0] == public["seats"][0]
    assert public["seats"][0]["hand"] == 2 and public["seats"][0]["yard_down"] == 1
    assert "hand" not in public


def test_the_removed_cards_and_the_deck_show_only_their_size() -> None:
    state = table(2, garden="rose")
    obs = state.observe(0)
    assert isinstance(obs["deck"], int) and isinstance(obs["removed"], int)


def test_render_shows_the_own_hand_and_hides_the_others() -> None:
    state = table(hands=["rose lily", "anemone", ""], yards_up=["", "chrysanth", ""], garden="lily")
    text = state.render(0)
    assert "seat 0 (dealer) (you):" in text and "hand [rose, lily of the valley]" in text
    assert "seat 1:   0 pts · hand 1 · yard up [chrysanth] down 0" in text
    assert "anemone" not in text.split("seat 1")[1].split("\n")[0]
    assert "garden: lily of the valley" in text


def test_describe_does_not_reveal_face_down_cards() -> None:
    state = table(hands=["rose lily", "", ""])
    line = state.describe(0, {"type": "feed_down", "cards": ["rose", "lily"]})
    assert line == "seat 0 feeds 2 card(s) face down into the yard"


def test_every_observation_starts_with_the_shared_envelope() -> None:
    state = table(hands=["rose", "", ""])
    for seat in (None, 0, 1, 2):
        view = state.observe(seat)
        assert list(view)[:5] == ["game", "seat", "players", "phase", "to_move"]
        assert [view[k] for k in ("game", "seat", "players", "phase", "to_move")] == [
            "blossom@2",
            seat,
            3,
            "play",
            [0],
        ]


def test_describe_does_not_reveal_a_card_dealt_into_a_hand() -> None:
    state = table(hands=["rose", "", ""])
    state.apply({0: {"type": "draw", "from": "deck"}})
    assert state.describe(-1, {"card": "cherry"}) == "seat 0 receives a card from the deck"


def test_a_card_taken_from_the_garden_stays_known_to_everyone() -> None:
    state = table(garden="rose lily")
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    assert state.observe(2)["seats"][0]["known"]["rose"] == 1


def test_a_known_card_played_face_up_is_no_longer_known() -> None:
    state = table(garden="rose lily")
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    act(state, {"type": "feed_up", "card": "rose"})
    assert state.observe(2)["seats"][0]["known"]["rose"] == 0


def test_a_known_card_fed_face_down_stays_known() -> None:
    state = table(garden="rose lily")
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    act(state, {"type": "feed_down", "cards": ["rose"]})
    assert state.observe(1)["seats"][0]["known"]["rose"] == 1


def test_determinize_keeps_known_cards_among_the_seats_hidden_ones() -> None:
    state = table(hands=["", "anemone", ""], garden="rose lily", current=1)
    act(state, {"type": "draw", "from": "garden", "kind": "rose"})
    for seed in range(20):
        alt = GAME.determinize(state.observe(0), 0, random.Random(seed))
        assert alt.hands[1][3] + alt.downs[1][3] >= 1  # kind index 3 is rose
