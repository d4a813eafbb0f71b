"""Hostile bots, each in a real sandboxed match against two random bots (issue 3).

Every match must finish, record the right status, leave the other seats alone, leave
no process or cgroup behind, and keep the referee's memory bounded.
"""

from __future__ import annotations

import resource
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from niwa.referee.cgroups import Cgroup, CgroupUnavailable
from niwa.referee.clock import TimeControl
from niwa.referee.match import MatchOutcome
from niwa.referee.process_player import LOG_LIMIT, MAX_LINE, STDERR_TAIL_LINES, TAIL_BYTES, _Tail
from niwa.referee.replay import Replay
from niwa.referee.sandbox import BotLimits
from tests.referee.sandboxing import (
    hostile_bot,
    leftover_cgroups,
    leftover_processes,
    moves_of,
    run_against_randoms,
)


def assert_contained(outcome: MatchOutcome, replay: Replay) -> None:
    """The match finished, the random seats played every move themselves, and nothing
    of the match is left running."""
    assert replay.result is not None
    for seat in (1, 2):
        assert outcome.seats[seat].status == "ok"
        assert {status for status, _, _ in moves_of(replay, seat)} == {"OK"}
    assert leftover_processes(outcome.match_id) == []
    assert leftover_cgroups(outcome.match_id) == []


def first_note(replay: Replay) -> str:
    return moves_of(replay, 0)[0][1]


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's 127.0.0.1 that a bot could reach without a sandbox."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_a_bot_that_sleeps_past_the_deadline_times_out_and_goes_out(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "sleep"), tmp_path)
    assert [s for s, _, _ in moves_of(replay, 0)][:2] == ["TIMEOUT", "TIMEOUT"]
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "TIMEOUT")
    assert outcome.result.places[0] == 2
    assert_contained(outcome, replay)


def test_a_bot_that_spins_the_cpu_times_out_with_its_cpu_time_recorded(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "spin"), tmp_path)
    first = next(m for s in replay.steps for m in s.moves if m.seat == 0)
    assert first.status == "TIMEOUT"
    assert first.cpu_ms is not None and first.cpu_ms > 0
    assert outcome.seats[0].reason == "TIMEOUT"
    assert_contained(outcome, replay)


def test_a_bot_that_allocates_4_gib_is_killed_and_crashed(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "allocate"), tmp_path)
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "CRASHED")
    assert "memory" in outcome.seats[0].detail or "MemoryError" in "".join(
        outcome.seats[0].stderr_tail
    )
    assert_contained(outcome, replay)


def test_a_bot_killed_by_the_memory_cgroup_is_told_its_limit(tmp_path: Path) -> None:
    try:
        trio.run(Cgroup.create("oom-probe", BotLimits()).remove)
    except CgroupUnavailable as e:
        pytest.skip(f"the memory limit is a cgroup's: {e}")
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "allocate"), tmp_path, limits=BotLimits(memory_mib=128)
    )
    message = "killed for using over 128 MiB of memory"
    assert (outcome.seats[0].reason, outcome.seats[0].detail) == ("CRASHED", message)
    assert moves_of(replay, 0)[0] == ("CRASHED", "", message)


def test_a_bot_killed_by_a_signal_is_told_which(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "segfault"), tmp_path)
    assert (outcome.seats[0].reason, outcome.seats[0].detail) == ("CRASHED", "killed by SIGSEGV")
    assert_contained(outcome, replay)



def test_a_fork_bomb_is_contained_and_cleaned_up(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "fork-bomb"), tmp_path, time_control=TimeControl.parse("2s+1s")
    )
    assert first_note(replay).startswith("fork refused")
    assert {s for s, _, _ in moves_of(replay, 0)} <= {"OK", "TIMEOUT", "OUT"}
    assert_contained(outcome, replay)


def test_a_tcp_connection_to_localhost_fails(tmp_path: Path, listener: int) -> None:
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "network", str(listener)), tmp_path
    )
    assert first_note(replay).startswith("connect blocked")
    assert outcome.seats[0].status == "ok"
    assert_contained(outcome, replay)


def test_the_same_connection_succeeds_without_the_sandbox(tmp_path: Path, listener: int) -> None:
    """The control for the test above: the probe itself works."""
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "network", str(listener)), tmp_path, sandbox=False
    )
    assert first_note(replay) == "connect succeeded"
    assert_contained(outcome, replay)


def test_reading_a_file_outside_its_directory_fails(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the referee's secret")
    secret.chmod(0o644)
    bot = hostile_bot(tmp_path, "read", str(secret), "/etc/shadow", "/bot/bot.toml")
    outcome, replay = run_against_randoms(bot, tmp_path)
    note = first_note(replay)
    assert f"blocked {secret}: FileNotFoundError" in note
    assert "blocked /etc/shadow" in note
    assert "read /bot/bot.toml: 'name" in note  # its own directory stays readable
    assert_contained(outcome, replay)


def test_writing_into_its_own_directory_fails(tmp_path: Path) -> None:
    bot = hostile_bot(tmp_path, "write")
    outcome, replay = run_against_randoms(bot, tmp_path)
    assert first_note(replay).startswith("write blocked")
    assert not (bot / "written-by-bot.txt").exists()
    assert_contained(outcome, replay)


def test_a_bot_that_exits_before_ready_is_crashed_from_the_start(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "exit-early"), tmp_path)
    seat = outcome.seats[0]
    assert (seat.status, seat.reason, seat.at) == ("out", "CRASHED", None)
    assert "before READY" in seat.detail
    assert "giving up before READY" in seat.stderr_tail
    assert {s for s, _, _ in moves_of(replay, 0)} == {"OUT"}
    assert_contained(outcome, replay)


def test_a_bot_that_crashes_mid_match_is_out_with_its_stderr(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "crash"), tmp_path)
    seat = outcome.seats[0]
    assert (seat.status, seat.reason) == ("out", "CRASHED")
    assert "exited with code 3" in seat.detail
    assert "about to crash on purpose" in seat.stderr_tail
    statuses = [s for s, _, _ in moves_of(replay, 0)]
    assert statuses[:2] == ["OK", "CRASHED"] and set(statuses[2:]) == {"OUT"}
    assert replay.result is not None and replay.result.seats[0].stderr_tail == seat.stderr_tail
    assert_contained(outcome, replay)


def test_an_exception_in_act_is_a_crash_named_in_the_detail_with_its_traceback(
    tmp_path: Path,
) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "raise", "2"), tmp_path)
    seat = outcome.seats[0]
    statuses = [s for s, _, _ in moves_of(replay, 0)]
    assert statuses[:2] == ["OK", "CRASHED"] and set(statuses[2:]) == {"OUT"}
    assert (seat.status, seat.reason) == ("out", "CRASHED")
    assert seat.detail.startswith("Act: your code raised ValueError: bad index ")
    assert moves_of(replay, 0)[1][2] == seat.detail
    tail = "\n".join(seat.stderr_tail)
    assert "Traceback (most recent call last)" in tail and 'raise ValueError(f"bad index' in tail
    assert replay.result is not None and replay.result.seats[0].stderr_tail == seat.stderr_tail
    assert_contained(outcome, replay)


def test_an_exception_in_start_is_a_crash_at_start_up(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "raise-start"), tmp_path)
    seat = outcome.seats[0]
    assert (seat.status, seat.reason, seat.at) == ("out", "CRASHED", None)
    assert seat.detail == "Start: your code raised RuntimeError: no weights file"
    assert "RuntimeError: no weights file" in seat.stderr_tail
    assert_contained(outcome, replay)


def test_a_bot_that_stops_serving_but_lives_on_is_disconnected(tmp_path: Path) -> None:
    # it stops serving while asked its second question, and lives on (ponder: it is
    # never frozen, so nothing but the lost server keeps it from answering)
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "hang-up"), tmp_path, ponder=True
    )
    statuses = [s for s, _, _ in moves_of(replay, 0)]
    cut = statuses.index("DISCONNECTED")  # once its server is gone
    assert set(statuses[:cut]) == {"OK"} and set(statuses[cut + 1 :]) <= {"OUT"}
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "DISCONNECTED")
    assert_contained(outcome, replay)


def test_a_bot_that_answers_an_illegal_action_is_illegal(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "illegal"), tmp_path)
    status, _, detail = moves_of(replay, 0)[0]
    assert status == "ILLEGAL" and "is not legal here" in detail
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "ILLEGAL")
    assert_contained(outcome, replay)


def test_a_bot_that_answers_an_index_out_of_range_is_illegal(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "out-of-range"), tmp_path)
    status, _, detail = moves_of(replay, 0)[0]
    assert status == "ILLEGAL" and "out of range" in detail
    assert_contained(outcome, replay)


def test_an_answer_far_over_the_size_limit_is_illegal(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "huge"), tmp_path)
    status, _, detail = moves_of(replay, 0)[0]
    assert status == "ILLEGAL" and "byte limit" in detail
    growth_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert growth_kib < 32 << 10  # the 16 MiB answer was never buffered
    assert_contained(outcome, replay)


def test_flooding_stdout_and_stderr_keeps_the_referee_bounded(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    logs = tmp_path / "logs"
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "flood"), tmp_path, log_dir=logs)
    growth_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert growth_kib < 32 << 10
    (kept,) = logs.glob("*seat0*.stderr")
    assert kept.stat().st_size == LOG_LIMIT  # it did flood, and only the cap was kept
    assert_contained(outcome, replay)


def test_the_stderr_tail_keeps_the_last_lines_cut_in_width() -> None:
    tail = _Tail(STDERR_TAIL_LINES)
    for i in range(1000):
        tail.feed(f"line {i} ".encode() + b"y" * 500 + b"\n")
    assert len(tail.lines) == STDERR_TAIL_LINES
    assert {len(line) for line in tail.lines} == {MAX_LINE}
    assert tail.lines[-1].startswith("line 999 ")


def test_the_stderr_tail_holds_a_bounded_number_of_bytes() -> None:
    tail = _Tail(STDERR_TAIL_LINES)
    for _ in range(1000):
        tail.feed(b"y" * 50_000 + b"\n")
    tail.feed(b"z" * (1 << 20))  # one chunk bigger than the tail
    assert len(tail._buf) == TAIL_BYTES
    assert tail.lines == ["z" * MAX_LINE]


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "no-sandbox"])
def test_a_bot_that_ignores_sigterm_is_killed_at_the_end(tmp_path: Path, sandbox: bool) -> None:
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "ignore-term"), tmp_path, sandbox=sandbox
    )
    assert outcome.seats[0].status == "ok"
    assert_contained(outcome, replay)
