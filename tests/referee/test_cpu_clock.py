"""The clock model (docs/protocol.md, "Clocks"), with real sandboxed bots: a bot in a
cgroup is charged the CPU time it uses, and a call's wall time is capped at
WALL_FACTOR x its time left + GRACE_S; a TIMEOUT empties the bank."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from niwa.referee.cgroups import Cgroup, CgroupUnavailable
from niwa.referee.clock import GRACE_S, WALL_FACTOR
from niwa.referee.replay import Header, Move, Replay
from niwa.referee.sandbox import BotLimits
from niwa.referee.watchdog import CpuWatchdog
from tests.referee.conftest import RunToy
from tests.referee.sandboxing import FAST, hostile_bot, run_against_randoms

FULL_CLOCK = FAST.per_decision_ms + FAST.bank_ms


@pytest.fixture(autouse=True)
def cgroups() -> None:
    try:
        group = Cgroup.create("clock-probe", BotLimits())
    except CgroupUnavailable as e:
        pytest.skip(f"the CPU clock needs cgroups: {e}")
    trio.run(group.remove)


def seat0(replay: Replay) -> list[Move]:
    return [m for s in replay.steps for m in s.moves if m.seat == 0]


def test_a_sandboxed_match_charges_cpu_time(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms("builtin:random", tmp_path)
    assert outcome.clock == replay.header.clock == "cpu"


def test_a_bot_idle_past_its_per_decision_time_is_not_charged_for_it(tmp_path: Path) -> None:
    nap_ms = FAST.per_decision_ms + 200  # longer than its free time, under the wall cap
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "nap", str(nap_ms)), tmp_path)
    moves = seat0(replay)
    assert {m.status for m in moves} == {"OK"}
    assert all(m.wall_ms is not None and m.wall_ms >= nap_ms for m in moves)
    # Sleeping costs no CPU: no decision drew on the bank.
    assert {m.clock_ms for m in moves} == {FULL_CLOCK}
    assert outcome.seats[0].status == "ok"


def test_a_bot_that_spins_past_its_time_left_times_out_on_cpu(tmp_path: Path) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "spin"), tmp_path)
    first, second = seat0(replay)[:2]
    assert first.status == "TIMEOUT" and first.cpu_ms is not None and first.cpu_ms > 0
    # Usually the watchdog stops it; on a machine so loaded that the bot gets under half
    # a CPU, the wall-time cap comes first (test_watchdog_* prove the watchdog alone).
    assert first.wall_ms is not None
    if first.detail.startswith("no answer within 1300 ms of CPU time"):
        assert first.detail == (f"no answer within 1300 ms of CPU time (used "
                                f"{first.cpu_ms:.0f} ms of CPU in {first.wall_ms:.0f} ms of "
                                "wall time)")
        assert first.clock_ms is not None and first.cpu_ms >= first.clock_ms
    else:
        assert first.detail == ("no answer within the wall-time cap of 2650 ms (2 x 1300 ms "
                                f"left + 50 ms; used {first.cpu_ms:.0f} ms of CPU)")
    assert second.clock_ms == FAST.per_decision_ms  # the bank is empty
    assert outcome.seats[0].reason == "TIMEOUT"


def test_a_bot_that_sleeps_past_the_wall_cap_times_out_with_an_empty_bank(
    tmp_path: Path,
) -> None:
    outcome, replay = run_against_randoms(hostile_bot(tmp_path, "sleep"), tmp_path)
    first, second = seat0(replay)[:2]
    assert (first.status, second.status) == ("TIMEOUT", "TIMEOUT")
    assert first.cpu_ms is not None  # asleep: little CPU, and the message says how much
    assert first.detail == ("no answer within the wall-time cap of 2650 ms (2 x 1300 ms left "
                            f"+ 50 ms; used {first.cpu_ms:.0f} ms of CPU)")
    assert second.detail == ("no answer within the wall-time cap of 650 ms (2 x 300 ms left "
                             f"+ 50 ms; used {second.cpu_ms:.0f} ms of CPU)")
    cap_ms = WALL_FACTOR * FULL_CLOCK + GRACE_S * 1000
    assert first.wall_ms is not None and first.wall_ms >= cap_ms
    assert (first.clock_ms, second.clock_ms) == (FULL_CLOCK, FAST.per_decision_ms)
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "TIMEOUT")


def test_in_process_bots_are_charged_wall_time(run_toy: RunToy) -> None:
    assert run_toy("builtin:random", "builtin:random").clock == "wall"


def test_a_replay_header_without_a_clock_reads_as_wall() -> None:
    old = {"kind": "header", "schema": "niwa-replay/1", "game": "toy", "version": "toy@1",
           "players": 2, "options": {}, "seed": 0,
           "seats": [{"seat": i, "bot": "builtin:random", "name": "random", "version": "1"}
                     for i in range(2)],
           "time_control": {"per_decision_ms": 1000, "bank_ms": 0}}
    assert Header.from_json(old).clock == "wall"  # type: ignore[arg-type]


class BusyAt:
    """A player whose CPU time runs at ``rate`` CPU-seconds per (virtual) second."""

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def cpu_seconds(self) -> float:
        return trio.current_time() * self.rate


async def _watched_call(rate: float, budget_s: float) -> None:
    """A call that never ends by itself, watched for ``budget_s`` of CPU time; its
    scope is left once the watchdog cancels it or a minute of (virtual) time passes."""
    async with trio.open_nursery() as nursery:
        watchdog = CpuWatchdog(BusyAt(rate))  # type: ignore[arg-type]
        nursery.start_soon(watchdog.run)
        with trio.move_on_after(60) as call:
            watchdog.arm(0.0, budget_s, call)
            try:
                await trio.sleep_forever()
            finally:
                watchdog.disarm()
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(("rate", "stopped_at"), [(1.0, 1.0), (0.5, 2.0)])
def test_watchdog_stops_the_call_when_the_cpu_budget_runs_out(
    rate: float, stopped_at: float
) -> None:
    async def main() -> float:
        await _watched_call(rate, 1.0)
        return trio.current_time()

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == pytest.approx(
        stopped_at, abs=0.01
    )


def test_watchdog_leaves_an_idle_bot_alone() -> None:
    async def main() -> float:
        await _watched_call(0.0, 1.0)
        return trio.current_time()

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == pytest.approx(60)


def test_watchdog_rearmed_for_the_next_call_counts_from_that_call() -> None:
    async def main() -> float:
        bot = BusyAt(1.0)
        async with trio.open_nursery() as nursery:
            watchdog = CpuWatchdog(bot)  # type: ignore[arg-type]
            nursery.start_soon(watchdog.run)
            with trio.move_on_after(60) as first:
                watchdog.arm(bot.cpu_seconds(), 1.0, first)
                await trio.sleep(0.5)  # answered within its budget
                watchdog.disarm()
            with trio.move_on_after(60) as second:
                watchdog.arm(bot.cpu_seconds(), 1.0, second)
                await trio.sleep_forever()
            nursery.cancel_scope.cancel()
        assert not first.cancel_called
        return trio.current_time()

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == pytest.approx(
        1.5, abs=0.01
    )
