"""Replay files: round trip, verification, and what a broken file says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.referee import replay
from niwa.referee.replay import check as replay_check
from tests.referee.conftest import RunToy
from tests.referee.toy import GAME


def _rewrite(path: Path, line: int, change: dict[str, object]) -> None:
    lines = path.read_text().splitlines()
    d = json.loads(lines[line])
    d.update(change)
    lines[line] = json.dumps(d)
    path.write_text("\n".join(lines) + "\n")


def test_header_names_game_version_seats_seed_and_time(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random", seed=42)
    h = replay.read(tmp_path / "toy.jsonl").header
    assert (h.schema, h.game, h.version, h.seed) == ("niwa-replay/2", "toy", "toy@1", 42)
    assert h.options == {"rounds": 6}
    assert [s.bot for s in h.seats] == ["builtin:random", "builtin:random"]
    assert h.time_control == {"per_decision_ms": 1000, "bank_ms": 5000}


def test_every_decision_records_times_status_and_clock(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random")
    for step in replay.read(tmp_path / "toy.jsonl").steps:
        for m in step.moves:
            if step.kind == "decision":
                assert m.status == "OK" and m.wall_ms is not None and m.cpu_ms is not None
                assert m.clock_ms is not None and m.clock_ms >= 1000


def test_a_changed_hash_fails_verification_at_its_step(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random")
    path = tmp_path / "toy.jsonl"
    _rewrite(path, 4, {"hash": "0000000000000000"})
    with pytest.raises(replay.ReplayError, match="step 3: state hash"):
        replay_check.verify(replay.read(path), GAME)


def test_a_changed_move_fails_verification(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random")
    path = tmp_path / "toy.jsonl"
    _rewrite(path, 1, {"moves": [{"seat": -1, "action": 7}]})
    with pytest.raises(replay.ReplayError, match="step 0: the recorded move is illegal"):
        replay_check.verify(replay.read(path), GAME)


def test_a_changed_result_fails_verification(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random")
    path = tmp_path / "toy.jsonl"
    last = len(path.read_text().splitlines()) - 1
    _rewrite(path, last, {"scores": [99.0, 0.0]})
    with pytest.raises(replay.ReplayError, match="result scores: expected"):
        replay_check.verify(replay.read(path), GAME)


def test_a_file_that_is_not_a_replay_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"kind": "something"}\n')
    with pytest.raises(replay.ReplayError, match="not a niwa-replay/2 replay"):
        replay.read(path)


def test_an_interrupted_replay_reads_without_a_result(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random")
    path = tmp_path / "toy.jsonl"
    path.write_text("\n".join(path.read_text().splitlines()[:6]) + "\n")
    r = replay.read(path)
    assert r.result is None and replay_check.verify(r, GAME) == 5



@pytest.mark.parametrize(
    "cls",
    [replay.Header, replay.SeatInfo, replay.Step, replay.Move, replay.ResultLine,
     replay.SeatOutcome],
)
def test_every_replay_field_has_a_type_the_reader_checks(cls: type) -> None:
    """A field added with a type the reader cannot check fails here, not on a user's
    file (the reader raises TypeError for it)."""
    hints, known = replay._schema(cls)
    unchecked = []
    for name in known:
        try:
            replay._convert([None], hints[name], name, "test")
        except replay.ReplayError:
            pass  # refused as the wrong type: the type is one the reader knows
        except TypeError:
            unchecked.append(name)
    assert unchecked == []
