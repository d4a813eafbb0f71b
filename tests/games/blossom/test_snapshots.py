"""Blossom snapshots go through the engine's envelope; foreign or malformed ones are refused."""

from __future__ import annotations

import random

import pytest

import engine
from engine.rulesets.blossom import GAME
from engine.rulesets.blossom.codec import FORMAT


def _started() -> dict[str, object]:
    state = GAME.new_game(3)
    rng = random.Random(7)
    for _ in range(40):
        if state.is_over():
            break
        state.apply(
            {
                s: engine.sample_chance(state, rng)
                if s == engine.CHANCE
                else rng.choice(state.legal_actions(s))
                for s in state.to_move()
            }
        )
    return state.to_json()


def test_a_snapshot_is_stamped_with_game_rules_and_data_digest() -> None:
    snap = _started()
    assert (snap["game"], snap["rules"], snap["data"]) == ("blossom", "blossom@1", FORMAT.data)
    assert len(FORMAT.data) == 64
    assert GAME.from_json(snap).to_json() == snap


def test_a_snapshot_of_another_rules_version_is_refused_naming_both() -> None:
    snap = _started() | {"rules": "blossom@0"}
    with pytest.raises(
        engine.SnapshotError,
        match=r"made with blossom rules blossom@0 .*installed: rules blossom@1",
    ):
        GAME.from_json(snap)


def test_a_snapshot_of_other_rules_data_is_refused_naming_both_digests() -> None:
    snap = _started() | {"data": "0" * 64}
    with pytest.raises(
        engine.SnapshotError, match=rf"data sha256 000000000000; installed: .*{FORMAT.data[:12]}"
    ):
        GAME.from_json(snap)


def test_a_snapshot_missing_a_state_field_is_refused() -> None:
    snap = _started()
    fields = dict(snap["state"])  # type: ignore[call-overload]
    del fields["phase"]
    with pytest.raises(engine.SnapshotError, match=r"missing phase"):
        GAME.from_json(snap | {"state": fields})


def test_a_snapshot_with_a_field_of_the_wrong_type_is_refused() -> None:
    snap = _started()
    fields = dict(snap["state"])  # type: ignore[call-overload]
    fields["hands"] = 3
    with pytest.raises(engine.SnapshotError, match=r"wrong type or value"):
        GAME.from_json(snap | {"state": fields})


def test_the_old_flat_snapshot_without_an_envelope_is_refused() -> None:
    with pytest.raises(engine.SnapshotError, match=r"missing (game, )?rules, data, state"):
        GAME.from_json(_started()["state"])  # type: ignore[arg-type]
