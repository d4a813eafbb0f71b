"""Replay schemas: niwa-replay/2 chains every step and hashes the full state at
checkpoints and at the end; files written as niwa-replay/1 (by the referee before it)
still read and verify."""

from __future__ import annotations

import json
from pathlib import Path

from niwa.engine import canonical_json
from niwa.referee import replay
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.referee.replay.check import check
from tests.referee.toy import GAME

#: Written by the referee at d3e70f0 (niwa-replay/1: a state hash on every step).
V1_FILE = Path(__file__).parent / "data" / "toy-niwa-replay-1.jsonl"


def test_a_niwa_replay_1_file_from_the_previous_referee_still_verifies() -> None:
    r = replay.read(V1_FILE)
    assert r.header.schema == "niwa-replay/1"
    assert all(s.hash and not s.chain for s in r.steps)
    report = check(r, GAME)
    assert report.problems == [] and report.complete and report.steps == len(r.steps)


def test_a_niwa_replay_1_file_is_checked_at_every_step_s_hash(tmp_path: Path) -> None:
    lines = [json.loads(t) for t in V1_FILE.read_text().splitlines()]
    lines[5]["hash"] = "0" * 16
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(canonical_json(d) + "\n" for d in lines))
    assert check(replay.read(path), GAME).problems[0].startswith("step 4: state hash")


def test_a_new_replay_chains_every_step_and_hashes_checkpoints_and_the_last(
    tmp_path: Path,
) -> None:
    path = tmp_path / "blossom.jsonl"
    play_match(MatchSpec(game="blossom", bots=[BotSpec.parse("builtin:random")] * 3,
                         seed=3, in_process=True, sandbox=False, replay_path=path))
    r = replay.read(path)
    assert r.header.schema == "niwa-replay/2" and len(r.steps) > replay.CHECKPOINT_EVERY
    assert len({s.chain for s in r.steps}) == len(r.steps)
    hashed = [s.index for s in r.steps if s.hash]
    every = replay.CHECKPOINT_EVERY
    assert hashed == [*range(every - 1, len(r.steps) - 1, every), len(r.steps) - 1]
    assert check(r).problems == []
