"""niwa.engine.snapshot: one envelope for every game's snapshot, refused with a clear error."""

from __future__ import annotations

import hashlib
import random
from importlib.resources import files
from typing import Any

import pytest

from niwa import engine
from niwa.engine.snapshot import SnapshotError, SnapshotFormat, data_digest

FMT = SnapshotFormat(game="blossom", rules="blossom@1", data="ab" * 32)


def _build(fields: dict[str, Any]) -> int:
    return int(fields["players"]) * 2


def test_wrap_then_unwrap_gives_the_state_back() -> None:
    snap = FMT.wrap({"players": 3})
    assert snap == {
        "game": "blossom",
        "rules": "blossom@1",
        "data": "ab" * 32,
        "state": {"players": 3},
    }
    assert FMT.unwrap(snap) == {"players": 3}


def test_snapshot_error_is_a_value_error_exported_from_engine() -> None:
    assert engine.SnapshotError is SnapshotError
    assert issubclass(SnapshotError, ValueError)


def test_another_rules_version_is_refused_naming_both_sides() -> None:
    snap = FMT.wrap({}) | {"rules": "blossom@2"}
    with pytest.raises(
        SnapshotError, match=r"made with blossom rules blossom@2 .*installed: rules blossom@1"
    ):
        FMT.unwrap(snap)


def test_another_data_hash_is_refused_naming_both_digests() -> None:
    snap = FMT.wrap({}) | {"data": "cd" * 32}
    with pytest.raises(SnapshotError, match=r"data sha256 cdcdcdcdcdcd; installed: .*abababababab"):
        FMT.unwrap(snap)


def test_another_game_is_refused_with_the_game_to_load() -> None:
    with pytest.raises(SnapshotError, match=r"engine.load\('sakura'\)"):
        FMT.unwrap(FMT.wrap({}) | {"game": "sakura"})


def test_missing_and_extra_envelope_keys_are_both_named() -> None:
    snap = {"game": "blossom", "rules": "blossom@1", "state": {}, "version": 1}
    with pytest.raises(SnapshotError, match=r"missing data; unexpected version"):
        FMT.unwrap(snap)


@pytest.mark.parametrize(("key", "value"), [("rules", 1), ("data", None), ("state", [])])
def test_a_wrong_type_in_the_envelope_is_refused(key: str, value: object) -> None:
    with pytest.raises(SnapshotError, match=rf"'{key}' must be"):
        FMT.unwrap(FMT.wrap({}) | {key: value})


def test_a_snapshot_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(SnapshotError, match=r"JSON object .* not list"):
        FMT.unwrap([])


def test_load_builds_from_exactly_the_fields() -> None:
    assert FMT.load(FMT.wrap({"players": 3}), {"players"}, _build) == 6


def test_load_names_missing_and_unexpected_state_fields() -> None:
    with pytest.raises(SnapshotError, match=r"missing players; unexpected seats"):
        FMT.load(FMT.wrap({"seats": 3}), {"players"}, _build)


def test_load_turns_a_field_of_the_wrong_type_into_a_snapshot_error() -> None:
    with pytest.raises(SnapshotError, match=r"wrong type or value \(TypeError"):
        FMT.load(FMT.wrap({"players": None}), {"players"}, _build)


def test_data_digest_hashes_the_named_files_bytes() -> None:
    body = files("niwa.engine.rulesets.blossom").joinpath("data/rules.json").read_bytes()
    want = hashlib.sha256(f"rules.json\0{len(body)}\0".encode() + body).hexdigest()
    assert data_digest("niwa.engine.rulesets.blossom", ["rules.json"]) == want


# Every game on the shared envelope, one test per game (bonsai and miyabi join here).
GAMES = ["blossom", "bonsai", "miyabi", "sakura"]


def _played(name: str) -> dict[str, Any]:
    """The snapshot of a 3-player game after 40 random moves."""
    state = engine.load(name).new_game(3)
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


@pytest.mark.parametrize("name", GAMES)
def test_a_game_snapshot_is_stamped_with_game_rules_and_data_digest(name: str) -> None:
    snap = _played(name)
    game = engine.load(name)
    assert (snap["game"], snap["rules"]) == (name, game.info.version)
    assert len(snap["data"]) == 64
    assert game.from_json(snap).to_json() == snap


@pytest.mark.parametrize("name", GAMES)
def test_a_game_refuses_a_snapshot_of_another_rules_version(name: str) -> None:
    snap = _played(name) | {"rules": f"{name}@0"}
    with pytest.raises(SnapshotError, match=rf"made with {name} rules {name}@0 .*installed"):
        engine.load(name).from_json(snap)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_refuses_a_snapshot_of_other_rules_data(name: str) -> None:
    snap = _played(name)
    with pytest.raises(SnapshotError, match=rf"000000000000; installed: .*{snap['data'][:12]}"):
        engine.load(name).from_json(snap | {"data": "0" * 64})


@pytest.mark.parametrize("name", GAMES)
def test_a_game_refuses_a_snapshot_missing_a_state_field(name: str) -> None:
    snap = _played(name)
    fields = dict(snap["state"])
    del fields["phase"]
    with pytest.raises(SnapshotError, match=r"missing phase"):
        engine.load(name).from_json(snap | {"state": fields})


@pytest.mark.parametrize("name", GAMES)
def test_a_game_refuses_a_snapshot_with_a_field_of_the_wrong_type(name: str) -> None:
    snap = _played(name)
    listed = next(k for k, v in sorted(snap["state"].items()) if isinstance(v, list))
    fields = dict(snap["state"]) | {listed: 3}  # a number where the game keeps a list
    with pytest.raises(SnapshotError, match=r"wrong type|not a list|malformed"):
        engine.load(name).from_json(snap | {"state": fields})


@pytest.mark.parametrize("name", GAMES)
def test_a_game_refuses_the_old_flat_snapshot_without_an_envelope(name: str) -> None:
    with pytest.raises(SnapshotError, match=r"missing (game, )?rules, data, state"):
        engine.load(name).from_json(_played(name)["state"])
