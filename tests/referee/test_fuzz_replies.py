"""Fuzz: a real sandboxed bot answers garbage over real gRPC for thousands of decisions
(docs/security.md). Whatever it sends, the referee never raises, the match completes with a
result, and every failure is classified. Seeded: a failure names its seed.

The bot (tests/referee/hostile/raw.py, behaviour ``fuzz``) draws each answer from a
generator seeded by the test's seed and the decision: random bytes as the raw reply
message, random JSON (1,100+ deep, 5,000-digit integers, 1e999, NaN, lone surrogates,
70,000 characters), random protobuf fields and wire types, notes of odd Unicode up to
and over the 1 MiB message limit, random gRPC statuses, and valid answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.referee.clock import TimeControl
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.referee.replay import read
from niwa.referee.replay.check import verify
from tests.referee.sandboxing import RAW, hostile_bot, leftover_processes
from tests.referee.toy import GAME

#: Toy rounds per match: about 0.8 decisions of the fuzzing seat each.
ROUNDS = 1500
KINDS = {"OK", "TIMEOUT", "ILLEGAL", "CRASHED", "DISCONNECTED"}


@pytest.mark.parametrize("seed", [1, 2])
def test_a_bot_answering_random_garbage_never_breaks_the_match(tmp_path: Path, seed: int) -> None:
    bot = hostile_bot(tmp_path, "fuzz", str(seed), script=RAW)
    replay_path = tmp_path / "fuzz.jsonl"
    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(bot)), BotSpec.parse("builtin:random")],
        options={"rounds": ROUNDS},
        seed=seed,
        time_control=TimeControl.parse("2s+10s"),
        max_failures=1_000_000,  # stay in: every decision is another try
        replay_path=replay_path,
    )
    outcome = play_match(spec)  # raises nothing

    replay = read(replay_path)
    assert replay.result is not None and replay.result.places == list(outcome.result.places)
    verify(replay, GAME)
    statuses = [m.status for s in replay.steps for m in s.moves if m.seat == 0]
    assert len(statuses) > 1000
    assert set(statuses) <= KINDS, f"seed {seed}: unclassified {set(statuses) - KINDS}"
    # The bot never dies and its socket always answers: only OK and ILLEGAL are right.
    assert set(statuses) == {"OK", "ILLEGAL"}, f"seed {seed}: {sorted(set(statuses))}"
    assert outcome.seats[0].status == "ok"
    assert leftover_processes(outcome.match_id) == []
