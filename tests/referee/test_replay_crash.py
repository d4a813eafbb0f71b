"""A referee killed mid-match leaves a readable replay prefix, missing at most the
steps of the last flush interval (docs/protocol.md, "Replay files")."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import trio

from niwa.referee import replay
from niwa.referee.match import flush_while_waiting
from niwa.referee.replay import FLUSH_INTERVAL_S, Header, Move, ReplayWriter, SeatInfo, Step
from niwa.referee.replay.check import check
from tests.polling import PATIENCE_S

#: The step after which the referee (a child process) waits longer than the flush
#: interval; it is killed (os._exit, no clean-up) right after the next step.
PAUSE_AT = 30

_CHILD = textwrap.dedent(f"""
    import os, sys, time
    from pathlib import Path
    from niwa.referee.match import BotSpec, MatchSpec, play_match

    def on_step(step, before, after):
        if step.index == {PAUSE_AT}:
            time.sleep({FLUSH_INTERVAL_S} * 1.5)
        if step.index == {PAUSE_AT + 1}:
            os._exit(9)

    play_match(MatchSpec(game="blossom", bots=[BotSpec.parse("builtin:random")] * 3,
                         seed=4, in_process=True, sandbox=False,
                         replay_path=Path(sys.argv[1]), on_step=on_step))
""")


def test_a_killed_referee_s_replay_keeps_every_step_older_than_the_flush_interval(
    tmp_path: Path,
) -> None:
    path = tmp_path / "killed.jsonl"
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                          check=False)
    assert done.returncode == 9, done.stderr.decode()[-2000:]
    r = replay.read(path)  # whole lines only: it reads
    assert r.result is None
    assert [s.index for s in r.steps] == list(range(PAUSE_AT + 2))
    report = check(r)
    assert report.problems == [] and not report.complete


def _header() -> Header:
    seats = [SeatInfo(0, "builtin:random", "random", "1")]
    return Header("toy", "toy@1", 1, {}, seats, 0, {"per_decision_ms": 1, "bank_ms": 0})


def test_pending_steps_are_written_while_the_referee_waits_for_a_bot(tmp_path: Path) -> None:
    path = tmp_path / "waiting.jsonl"
    writer = ReplayWriter(path, flush_interval_s=0.05)
    writer.header(_header())
    writer.flush_interval_s = 3600  # only the waiting task may write the step below
    writer.step(Step(0, "chance", [Move(-1, 2)], chain="0" * 16))
    assert len(path.read_text().splitlines()) == 1
    writer.flush_interval_s = 0.05

    async def wait_for_a_bot() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(flush_while_waiting, writer)
            with trio.move_on_after(PATIENCE_S):  # however late a busy machine wakes it
                while len(path.read_text().splitlines()) < 2:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()

    trio.run(wait_for_a_bot)
    assert len(path.read_text().splitlines()) == 2
    writer.close()
