"""How failed calls are classified (docs/protocol.md, "Failures"), with real sandboxed
bots written against grpc directly (tests/referee/hostile/raw.py).

A status the bot's server returns is ILLEGAL whatever its code but UNKNOWN (its
handler threw: CRASHED, out at once); two replies to one
call are ILLEGAL at once; a TIMEOUT empties the bank. (A socket that stops answering
while the process lives is DISCONNECTED, a process that exits mid-match CRASHED:
test_hostile_bots.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.referee.replay import Move, Replay
from tests.referee.sandboxing import FAST, RAW, hostile_bot, run_against_randoms

FULL_CLOCK = FAST.per_decision_ms + FAST.bank_ms


def seat0(replay: Replay) -> list[Move]:
    return [m for s in replay.steps for m in s.moves if m.seat == 0]


@pytest.mark.parametrize("code", ["UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "INTERNAL"])
def test_a_status_returned_by_the_bots_server_is_illegal(tmp_path: Path, code: str) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "status", code, script=RAW),
                                          tmp_path)
    first, second = seat0(replay)[:2]
    assert (first.status, second.status) == ("ILLEGAL", "ILLEGAL")
    assert f"an error status from your server: {code} {code} on purpose" in first.detail
    # Not a TIMEOUT: the bank is untouched.
    assert first.clock_ms == second.clock_ms == FULL_CLOCK
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "ILLEGAL")


def test_status_unknown_from_any_server_is_a_crash_that_puts_the_seat_out(
    tmp_path: Path,
) -> None:
    """UNKNOWN is what a gRPC server in any language sends when its handler throws."""
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "status", "UNKNOWN", script=RAW), tmp_path
    )
    first, *rest = seat0(replay)
    assert (first.status, first.detail) == ("CRASHED", "Act: your code raised UNKNOWN on purpose")
    assert {m.status for m in rest} == {"OUT"}
    assert (outcome.seats[0].status, outcome.seats[0].reason, outcome.seats[0].at) == (
        "out", "CRASHED", first_step(replay))


def first_step(replay: Replay) -> int:
    return next(s.index for s in replay.steps for m in s.moves if m.seat == 0)


def test_two_replies_to_one_call_are_illegal_at_once(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "two-replies", script=RAW),
                                          tmp_path)
    first, second = seat0(replay)[:2]
    assert (first.status, first.detail) == ("ILLEGAL", "two replies to one call")
    assert second.clock_ms == FULL_CLOCK
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "ILLEGAL")


def test_a_bot_that_prints_ready_and_exits_is_crashed_not_disconnected(
    tmp_path: Path,
) -> None:
    # Its socket is gone with it: the exit, not the missing socket, is the failure.
    outcome, _ = run_against_randoms(hostile_bot(tmp_path, "ready-exit"), tmp_path)
    seat = outcome.seats[0]
    assert (seat.status, seat.reason, seat.at) == ("out", "CRASHED", None)
    assert seat.detail == "exited with code 0"

