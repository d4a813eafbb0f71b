"""Observations, determinize, snapshots, text rendering and narration."""

from __future__ import annotations

import json
import random

from niwa.engine import CHANCE
from niwa.engine.rulesets.bonsai import GAME

from .table import CULTIVATE, meditate, place, play, supply, table, tree

MARTHA = """
   4 |             Le
   3 |           Wo  Le
   2 |         Wo  Le
   1 |           Wo  Le
   0 | ~~  ~~  Wo  ~~  ~~  ~~
"""


def test_the_observation_starts_with_the_niwa_envelope() -> None:
    s = table(players=3)
    obs = s.observe(1)
    assert list(obs)[:5] == ["game", "seat", "players", "phase", "to_move"]
    assert [obs[k] for k in list(obs)[:5]] == ["bonsai@2", 1, 3, "choose", [0]]
    assert s.observe(None)["seat"] is None


def test_every_seat_sees_the_same_table_but_its_own_name() -> None:
    s = table(players=3)
    views = [s.observe(seat) for seat in (None, 0, 1, 2)]
    assert [v.pop("seat") for v in views] == [None, 0, 1, 2]
    assert all(v == views[0] for v in views)


def test_the_deck_is_an_unordered_multiset_in_every_view() -> None:
    deck = table(players=2).observe(1)["deck"]
    assert set(deck) == {"top_parchments", "top_others", "pool"}
    assert sum(deck["pool"].values()) == 28


def test_the_observation_carries_the_turn_and_derived_fields() -> None:
    s = table(players=2)
    supply(s, 0, leaf=1)
    play(s, CULTIVATE)
    obs = s.observe(0)
    assert obs["phase"] == "cultivate" and obs["to_move"] == [0]
    assert obs["turn"]["allowance"] == {"wood": 1, "leaf": 1, "flower": 0, "fruit": 0, "any": 1}
    assert obs["capacity"] == [5, 5] and obs["deck_size"] == 28
    assert obs["scores"][0]["total"] == 0 and obs["solo"] is None


def test_determinize_rebuilds_the_same_state() -> None:
    s = table(players=3)
    play(s, meditate(3))
    obs = json.loads(json.dumps(s.observe(2)))
    alt = GAME.determinize(obs, 2, random.Random(1))
    assert alt.to_json() == s.to_json()
    assert alt.observe(2) == s.observe(2)


def test_a_snapshot_round_trips() -> None:
    s = table(players=4, options={"tokonoma": True})
    s.seats[2].tree = tree(MARTHA)
    back = GAME.from_json(json.loads(json.dumps(s.to_json())))
    assert back.to_json() == s.to_json()


def test_render_draws_the_tree_row_by_row_over_its_pot() -> None:
    s = table(players=2)
    s.seats[0].tree = tree(MARTHA)
    text = s.render(0)
    assert "seat 0: 12 points <- to move" in text
    assert (
        "\n".join(
            [
                "     4 |             Le",
                "     3 |           Wo  Le",
                "     2 |         Wo  Le",
                "     1 |           Wo  Le",
                "     0 | ~~  ~~  Wo  ~~  ~~  ~~",
                "    -1 |   ~~  ~~  ~~  ~~  ~~",
                "    -2 |     ~~  ~~  ~~  ~~",
                "     u | -4      0       4",
            ]
        )
        in text
    )


def test_render_lists_the_board_with_the_slot_tiles() -> None:
    text = table(players=2).render(None)
    assert "slot 3: Master (any) + wood and flower" in text
    assert "slot 4: Helper (any + leaf) + leaf and fruit" in text


def test_render_picture_reads_back_into_the_same_tree() -> None:
    s = table(players=2)
    s.seats[1].tree = tree(MARTHA)
    lines = s.render(None).splitlines()
    start = lines.index("seat 1: 12 points")
    picture = "\n".join(line[2:] for line in lines[start + 2 : start + 10])
    assert tree(picture) == s.seats[1].tree


def test_describe_tells_each_move_in_a_sentence() -> None:
    s = table(players=2)
    assert s.describe(0, meditate(3)) == (
        "seat 0 meditates: takes Master (any) from slot 3 with wood and flower"
    )
    assert s.describe(0, meditate(2, "leaf")).endswith("from slot 2 with leaf")
    assert s.describe(0, place("leaf", 1, 1)) == "seat 0 places a leaf tile at (1, 1)"
    assert s.describe(0, {"type": "claim", "goal": "green-low"}) == (
        "seat 0 claims the green Moyogi goal (low, 6 points)"
    )
    assert s.describe(CHANCE, {"type": "reveal", "card": "tool"}) == (
        "Tool (+2 capacity) is revealed on the board"
    )


def test_a_card_in_the_face_down_pile_is_known_to_every_seat() -> None:
    """Parchments go face down (RB, Meditate), but each was taken face up from the board
    in everyone's sight, so the engine shows it to all (docs: "What is hidden")."""
    s = table(players=2, board=("parchment:leaf", "growth:wood", "growth:flower", "tool"))
    s.seats[1].tree = tree(MARTHA)
    play(s, CULTIVATE)
    play(s, {"type": "end_placing"})
    play(s, meditate(1))  # seat 1 takes the Parchment
    reveal_card = {"type": "reveal", "card": "tool"}
    s.apply({CHANCE: reveal_card})
    other = s.observe(0)
    assert other["seats"][1]["cards"] == ["parchment:leaf"]
    assert other["scores"][1]["parchments"] == 4


def test_determinize_needs_no_randomness_as_nothing_is_hidden() -> None:
    s = table(players=4, options={"tokonoma": True})
    obs = s.observe(3)
    rebuilt = [GAME.determinize(obs, 3, random.Random(seed)).to_json() for seed in range(3)]
    assert rebuilt == [s.to_json()] * 3
    assert GAME.info.hidden_information is False


def test_render_shows_the_face_up_cards_apart_from_the_face_down_pile() -> None:
    s = table(players=2)
    s.seats[0].cards = ["growth:leaf", "parchment:leaf", "tool", "growth:leaf", "master:any"]
    text = s.render(None)
    assert "  face up: Growth (leaf) x2; Tool (+2 capacity)" in text
    assert "  face-down pile: Parchment (1 per leaf); Master (any)" in text


def test_render_of_a_finished_game_gives_the_final_places() -> None:
    s = table(players=3)
    s.seats[0].tree = tree(MARTHA)
    s.phase = "over"
    text = s.render(None)
    assert "deck 39 card(s), game over" in text
    assert text.endswith("final: 1. seat 0, 2. seat 2, 3. seat 1")  # the tie goes to seat 2
