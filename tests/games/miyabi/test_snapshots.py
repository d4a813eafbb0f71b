"""Snapshots carry the shared envelope (niwa.engine.snapshot), and only good ones load."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from niwa.engine import CHANCE, SnapshotError, canonical_json, sample_chance, state_hash
from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.state import MiyabiState
from niwa.engine.testing.checks import every_state
from tests.games.snapshots import Refusal, refusals, settled_snapshot

VARIANTS = {"colorfulGarden": True, "bigMeadow": True, "maxLayer": 3, "allowRotation": False}


@pytest.mark.parametrize(
    "refusal", refusals("miyabi", "miyabi@2", "supply", ("round", "one")), ids=lambda r: r.name
)
def test_a_snapshot_of_other_rules_or_data_or_malformed_is_refused(refusal: Refusal) -> None:
    refusal.check(GAME, settled_snapshot(GAME, 3))


def test_a_snapshot_with_an_unknown_phase_is_refused() -> None:
    snap = settled_snapshot(GAME, 3)
    snap["state"]["phase"] = "feast"
    with pytest.raises(SnapshotError, match=r"unknown phase 'feast'"):
        GAME.from_json(snap)


def test_a_snapshot_records_the_round_and_whose_turn_it_is() -> None:
    state = settled_snapshot(GAME, 3)["state"]
    assert (state["round"], state["phase"], state["current"]) == (1, "choose", 0)


def _with_tiles() -> MiyabiState:
    """A 2-player game once a few tiles lie in the gardens."""
    rng = random.Random(1)
    s = GAME.new_game(2, {})
    while sum(len(g.tiles) for g in s.gardens) < 3:
        seat = s.to_move()[0]
        action = sample_chance(s, rng) if seat == CHANCE else rng.choice(s.legal_actions(seat))
        s.apply({seat: action})
    return s


def _first_tile(snapshot: dict[str, Any]) -> Any:
    return next(g["tiles"][0] for g in snapshot["state"]["gardens"] if g["tiles"])


@pytest.mark.parametrize("options", [{}, VARIANTS], ids=["defaults", "variants"])
def test_the_snapshot_text_is_the_canonical_json_of_the_snapshot_after_every_move(
    options: dict[str, Any],
) -> None:
    for players in (2, 3, 4):
        for step, s in enumerate(every_state(GAME, players, 3, options)):
            # either may be asked first and make the kept pieces
            if step % 2:
                assert s.snapshot_text() == canonical_json(s.to_json())
            else:
                assert canonical_json(s.to_json()) == s.snapshot_text()


def test_a_clone_keeps_its_own_snapshot_text_as_both_play_on() -> None:
    s = _with_tiles()
    s.snapshot_text()
    c = s.clone()
    rng = random.Random(2)
    for state in (s, c):
        for _ in range(12):
            seat = state.to_move()[0]
            legal = state.legal_actions(seat) if seat != CHANCE else None
            state.apply({seat: sample_chance(state, rng) if legal is None else rng.choice(legal)})
    assert c.snapshot_text() == canonical_json(c.to_json())
    assert s.snapshot_text() == canonical_json(s.to_json())


def test_the_state_hash_digests_the_snapshot_text() -> None:
    s = _with_tiles()
    rebuilt = GAME.from_json(json.loads(canonical_json(s.to_json())))
    assert state_hash(s) == state_hash(rebuilt)


def test_a_snapshots_tiles_refuse_edits_so_later_snapshots_stay_whole() -> None:
    s = _with_tiles()
    before = json.loads(canonical_json(s.to_json()))
    tile = _first_tile(s.to_json())
    with pytest.raises(TypeError, match="shared by every snapshot"):
        tile["layer"] = 99
    with pytest.raises(TypeError, match="shared by every snapshot"):
        tile["cells"][0][0] = 99
    assert s.to_json() == before


def test_a_deep_copy_of_a_snapshot_is_editable_and_leaves_the_state_alone() -> None:
    s = _with_tiles()
    before = canonical_json(s.to_json())
    edited = copy.deepcopy(s.to_json())
    _first_tile(edited)["cells"][0][0] = 99
    assert canonical_json(s.to_json()) == before != canonical_json(edited)


def test_the_list_of_tiles_in_a_snapshot_is_the_callers_own() -> None:
    s = _with_tiles()
    gardens = s.to_json()["state"]["gardens"]
    count = len(gardens[0]["tiles"])
    gardens[0]["tiles"].append({"shape": "single"})
    assert len(s.to_json()["state"]["gardens"][0]["tiles"]) == count
