"""The replay writer spells step lines directly, for speed: each must be exactly the
canonical JSON of the step (the spelling the reader, the chain and the ladder's
stored hash rely on)."""

from __future__ import annotations

import pytest

from niwa.engine import CHANCE, canonical_json
from niwa.referee.replay import Move, Step, chance_line, encode, encoded_actions, step_text

MOVES = [
    Move(CHANCE, {"card": 10, "type": "draw"}),
    Move(0, "take", "OK", 0.0123456, 0.004, 31000),
    Move(1, {"cells": [[0, 1], [2, 3]], "é": None}, "TIMEOUT", 1000.5, None, 1000, "",
         "no answer within 1000 ms \u202e\x1b"),
    Move(2, 7, "OK", 1e-9, 12345.6789, 0, "a \"note\"\n", debug="scores: a=0.4\tb=0.6"),
    Move(3, [1.5, -0.0, 1e300], "OUT"),
    Move(4, 0, 'not "a" word', 2, 3, 4),  # no reader accepts it; the spelling still holds
]


@pytest.mark.parametrize("move", MOVES, ids=lambda m: f"seat{m.seat}-{m.status}")
def test_a_move_is_spelled_as_its_canonical_json(move: Move) -> None:
    assert move.line() == canonical_json(move.to_json())


@pytest.mark.parametrize("ms", [
    0.0, -0.0, 0.0005, 0.0015, 2.0005, -0.0004, 5.0004, 7.9996, 1e-9, 123456.7895,
    999_999_999_999.9995, 1e12, -1e12, 1e20, float("nan"), float("inf"), -float("inf"),
])
def test_a_time_is_spelled_as_its_rounded_canonical_json(ms: float) -> None:
    # Times are spelled with "%.3f" in the line, with round() in to_json: the same text.
    move = Move(0, 1, "OK", ms, ms, 5)
    assert move.line() == canonical_json(move.to_json())


@pytest.mark.parametrize("digest", ["", "0123456789abcdef"])
@pytest.mark.parametrize("chain", ["", "fedcba9876543210"])
def test_a_decision_step_is_spelled_as_its_canonical_json(digest: str, chain: str) -> None:
    step = Step(12, "decision", MOVES[1:], digest, chain)
    assert step.line() == canonical_json(step.to_json())


def test_a_decision_is_spelled_from_its_parts_as_its_steps_line() -> None:
    step = Step(12, "decision", MOVES[1:], "0123456789abcdef", "fedcba9876543210")
    actions = encoded_actions(step.moves)
    assert step_text(12, "decision", step.moves, actions, step.chain, step.hash) == (
        canonical_json(step.to_json())
    )


@pytest.mark.parametrize("digest", ["", "0123456789abcdef"])
def test_a_chance_step_is_spelled_as_its_canonical_json(digest: str) -> None:
    step = Step(3, "chance", MOVES[:1], digest, "fedcba9876543210")
    assert step.line() == canonical_json(step.to_json())
    assert chance_line(3, encode(MOVES[0].action), step.chain, digest) == step.line()
