"""Snapshots carry the shared envelope; another rules version, data set or a malformed
state is refused with an error that names the cause and the fix."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import SnapshotError
from engine.rulesets.bonsai import GAME


def _snapshot() -> dict[str, Any]:
    state = GAME.new_game(2)
    while state.to_move() == (-1,):
        state.apply({-1: state.chance_outcomes()[0][0]})
    snap: dict[str, Any] = json.loads(json.dumps(state.to_json()))
    return snap


def test_a_snapshot_is_stamped_with_the_game_its_rules_version_and_data_hash() -> None:
    snap = _snapshot()
    assert (snap["game"], snap["rules"], len(snap["data"])) == ("bonsai", "bonsai@1", 64)
    assert snap["state"]["phase"] == "choose"


def test_a_snapshot_of_another_rules_version_is_refused() -> None:
    with pytest.raises(SnapshotError, match=r"rules bonsai@2 .*installed: rules bonsai@1"):
        GAME.from_json(_snapshot() | {"rules": "bonsai@2"})


def test_a_snapshot_made_with_other_rules_data_is_refused() -> None:
    with pytest.raises(SnapshotError, match=r"data sha256 000000000000; installed"):
        GAME.from_json(_snapshot() | {"data": "0" * 64})


def test_a_snapshot_of_another_game_is_refused_naming_the_game_to_load() -> None:
    with pytest.raises(SnapshotError, match=r"snapshot of 'miyabi', not of 'bonsai'"):
        GAME.from_json(_snapshot() | {"game": "miyabi"})


def test_a_snapshot_missing_a_state_field_is_refused_naming_it() -> None:
    snap = _snapshot()
    del snap["state"]["deck"]
    with pytest.raises(SnapshotError, match=r"malformed bonsai snapshot state \(missing deck\)"):
        GAME.from_json(snap)


def test_a_snapshot_field_of_the_wrong_type_is_refused() -> None:
    snap = _snapshot()
    snap["state"]["seats"] = 2
    with pytest.raises(SnapshotError, match=r"malformed bonsai snapshot state: a field has"):
        GAME.from_json(snap)


def test_an_observation_rebuilds_the_state_it_shows() -> None:
    snap = _snapshot()
    state = GAME.from_json(snap)
    observation = json.loads(json.dumps(state.observe(1)))
    rebuilt = GAME.determinize(observation, 1, random.Random(0))
    assert rebuilt.to_json() == snap
