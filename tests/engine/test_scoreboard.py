"""The viewer's score hooks: a running score per seat from the spectator's view, the
end-of-game table with its tie-break sentence, and words for the rules data's ids."""

from __future__ import annotations

import json
import random
import re

import pytest

from niwa import engine
from niwa.engine import CHANCE, Result, State
from niwa.engine.scoreboard import ordinal, table, tie_sentences

GAMES = ("blossom", "sakura", "bonsai", "miyabi")


def finished(game: str, players: int, seed: int = 1) -> State:
    state = engine.load(game).new_game(players)
    rng = random.Random(seed)
    while not state.is_over():
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: state.sample_chance(rng)})
        else:
            state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
    return state


@pytest.mark.parametrize("game", GAMES)
def test_the_running_score_at_the_end_is_the_results_score(game: str) -> None:
    state = finished(game, 3)
    score_now = engine.load(game).score_now()
    assert score_now is not None
    assert score_now(state.observe(None)) == list(state.result().scores)


@pytest.mark.parametrize("game", GAMES)
def test_the_breakdown_has_a_value_per_seat_in_every_row_and_the_places_last(game: str) -> None:
    state = finished(game, 3)
    hook = engine.load(game).score_breakdown()
    assert hook is not None
    out = hook(state)
    json.dumps(out)  # plain JSON for the payload
    assert all(len(row["values"]) == 3 for row in out["rows"])
    assert out["rows"][-1] == {
        "label": "place", "values": [ordinal(p) for p in state.result().places]}
    assert "tie" in str(out["tie_rule"])


def test_a_tie_decided_by_the_measure_says_who_placed_where_and_why() -> None:
    result = Result(scores=(69.0, 69.0, 50.0), places=(1, 0, 2))
    assert tie_sentences(result, ("fewer cards in hand and yard", [14, 12, 9])) == [
        "Seat 0 and seat 1 tied on 69 points; fewer cards in hand and yard: seat 0 14, "
        "seat 1 12, so seat 1 1st, seat 0 2nd."
    ]


def test_a_tie_the_measure_leaves_equal_is_a_shared_place() -> None:
    result = Result(scores=(5.0, 5.0), places=(0, 0))
    assert tie_sentences(result, ("painter's space", [0, 0])) == [
        "Seat 0 and seat 1 tied on 5 points; painter's space: seat 0 0, seat 1 0, still "
        "equal, so they share the 1st place."
    ]


def test_a_game_without_a_measure_shares_tied_places_and_no_tie_means_no_sentence() -> None:
    assert tie_sentences(Result((3.0, 7.0, 3.0), (1, 0, 1))) == [
        "Seat 0 and seat 2 tied on 3 points and share the 2nd place."
    ]
    assert table([("points", [1, 2])], Result((1.0, 2.0), (1, 0)), "rule")["tie_break"] == []


def test_sakura_cards_and_bonsai_cards_and_goals_have_words_for_every_id() -> None:
    sakura = engine.load("sakura").glossary()
    assert sakura is not None and sakura["EMP_FWD_OR_BACK_1"] == "Emperor forward or back 1"
    bonsai = engine.load("bonsai").glossary()
    assert bonsai is not None
    state = finished("bonsai", 2)
    ids = {c for seat in state.observe(None)["seats"] for c in seat["cards"]}
    assert ids <= set(bonsai)
    assert not any(re.search(r"[a-z]+:[a-z]", words) for words in bonsai.values())
