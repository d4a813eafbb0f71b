"""Fairness around a bot's turns: an idle bot is frozen (unless the match lets bots
ponder), and a bot flooding its pipes costs the referee a bounded number of bytes."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
import trio

from niwa.engine import State
from niwa.referee.cgroups import DEFAULT_ROOT
from niwa.referee.clock import TimeControl
from niwa.referee.match import BotLimits, BotSpec, MatchOutcome, MatchSpec, run_match
from niwa.referee.process_player import (
    EXIT_BYTES,
    FAST_BYTES,
    FREEZE_AFTER_S,
    LOG_LIMIT,
    THROTTLE_BYTES,
    THROTTLE_S,
    ProcessPlayer,
)
from niwa.referee.replay import Step, read
from tests.referee.sandboxing import cgroups_named, hostile_bot, moves_of, run_against_randoms
from tests.referee.test_hostile_bots import assert_contained
from tests.referee.toy import GAME

ACCT = DEFAULT_ROOT / "cpuacct"
FREEZER = DEFAULT_ROOT / "freezer"

pytestmark = pytest.mark.skipif(
    not (ACCT / "cgroup.procs").exists() or not (FREEZER / "cgroup.procs").exists(),
    reason="these tests read the bot's v1 cpuacct and freezer groups",
)


def group_of(match_id: str, seat: int, hierarchy: Path) -> Path:
    (found,) = cgroups_named(f"niwa-{match_id}-{seat}-*", hierarchy)
    return found


def usage_s(match_id: str, seat: int) -> float:
    return int((group_of(match_id, seat, ACCT) / "cpuacct.usage").read_text()) / 1e9


def cpu_across_a_pause(tmp_path: Path, ponder: bool) -> tuple[str, float]:
    """Seat 0 spins a CPU-burning thread all match long; seat 1 naps 800 ms per
    decision, so seat 0 waits. A task beside the match watches one such wait: the
    freezer state once seat 0 has been idle past FREEZE_AFTER_S (and, unless it may
    ponder, frozen), and the CPU it used over the next 0.2 s. A window that a turn of
    seat 0 overlapped is measured again."""
    # Unique on the machine: its groups are found by this name, beside other runs'.
    match_id = f"idle{'ponder' if ponder else 'frozen'}{uuid.uuid4().hex[:8]}"
    answered = trio.Event()  # seat 0 alone answered: seat 1's 800 ms nap comes next
    decisions = 0  # decision steps so far: one during a window means a turn came
    measured: list[tuple[str, float]] = []

    def note_answers(step: Step, before: State, after: State) -> None:
        nonlocal decisions
        if step.kind == "decision":
            decisions += 1
        if [m.seat for m in step.moves] == [0]:
            answered.set()

    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(hostile_bot(tmp_path, "ponder"))),
              BotSpec.parse(str(hostile_bot(tmp_path, "nap", "800"))),
              BotSpec.parse("builtin:random")],
        options={"rounds": 9},
        seed=11,
        time_control=TimeControl.parse("1s+5s"),
        limits=BotLimits(memory_mib=256),
        replay_path=tmp_path / "match.jsonl",
        match_id=match_id,
        ponder=ponder,
        on_step=note_answers,
    )

    async def watch() -> None:
        nonlocal answered
        while not measured:
            await answered.wait()
            answered = trio.Event()
            seen = decisions
            await trio.sleep(FREEZE_AFTER_S)
            state_file = group_of(match_id, 0, FREEZER) / "freezer.state"
            if not ponder:  # the freezer stops every thread within moments
                while state_file.read_text().strip() != "FROZEN" and decisions == seen:
                    await trio.sleep(0.005)
                await trio.sleep(0.05)  # the kernel's accounting of its last slice
            state = state_file.read_text().strip()
            start = usage_s(match_id, 0)
            await trio.sleep(0.2)
            if decisions != seen:  # the nap ended inside the window: measure again
                continue
            measured.append((state, usage_s(match_id, 0) - start))

    async def main() -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            outcome = await run_match(spec)
            nursery.cancel_scope.cancel()  # a watcher still waiting measured nothing
            return outcome
        raise AssertionError("the match was cancelled before it ended")

    outcome = trio.run(main)
    replay = read(tmp_path / "match.jsonl")
    assert_contained(outcome, replay)
    assert outcome.seats[0].status == "ok"
    assert len(measured) == 1
    return measured[0]


def test_an_idle_bot_is_frozen_and_uses_no_cpu_between_its_turns(tmp_path: Path) -> None:
    state, used = cpu_across_a_pause(tmp_path, ponder=False)
    assert state == "FROZEN"
    assert used == 0.0


def test_with_ponder_an_idle_bot_keeps_running_between_its_turns(tmp_path: Path) -> None:
    state, used = cpu_across_a_pause(tmp_path, ponder=True)
    assert state == "THAWED"
    # It ran in the window: a frozen bot gets exactly 0, a thawed one some CPU however
    # busy the machine (how much depends on the load: no bound on it here).
    assert used > 0


def flood_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ponder: bool
) -> tuple[dict[str, int], float]:
    """The flooding bot against two random bots; (bytes the referee read from its
    stdout and stderr, seconds the bot's pipes were open at most)."""
    logs_dir = tmp_path / "logs"
    read: dict[int, dict[str, int]] = {}
    close = ProcessPlayer.close

    async def close_and_count(self: ProcessPlayer) -> None:
        await close(self)
        read[self.seat] = dict(self.bytes_read)

    monkeypatch.setattr(ProcessPlayer, "close", close_and_count)
    started = time.monotonic()
    outcome, replay = run_against_randoms(
        hostile_bot(tmp_path, "flood"), tmp_path, log_dir=logs_dir, ponder=ponder
    )
    elapsed = time.monotonic() - started
    assert_contained(outcome, replay)  # its opponents: every decision OK, no timeout
    assert "OK" in {status for status, _, _ in moves_of(replay, 0)}  # READY was seen
    (kept,) = logs_dir.glob("*seat0*.stderr")
    assert kept.stat().st_size == LOG_LIMIT  # the first MiB of its stderr is kept
    return read[0], elapsed


def budget(elapsed_s: float) -> int:
    """The most the referee reads from one pipe in ``elapsed_s``."""
    return FAST_BYTES + EXIT_BYTES + THROTTLE_BYTES * (int(elapsed_s / THROTTLE_S) + 2)


def test_a_flooding_bot_is_read_at_a_bounded_rate_past_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, elapsed = flood_match(tmp_path, monkeypatch, ponder=True)  # ponder: it floods non-stop
    assert read["stderr"] > FAST_BYTES  # it flooded past the full-speed budget
    assert read["stdout"] <= budget(elapsed)
    assert read["stderr"] <= budget(elapsed)


def test_a_frozen_flooding_bot_floods_only_during_its_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, elapsed = flood_match(tmp_path, monkeypatch, ponder=False)
    assert read["stdout"] <= budget(elapsed)
    assert read["stderr"] <= budget(elapsed)
