"""A match cancelled from outside (a ladder stopping, Ctrl-C) while a bot is thinking
still stops and reaps every bot: the cancellation reaches the reaper tasks too, so
closing a player must not depend on them."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import trio

from niwa.referee.clock import TimeControl
from niwa.referee.match import BotLimits, BotSpec, MatchSpec, run_match
from tests.polling import PATIENCE_S
from tests.referee.sandboxing import hostile_bot, leftover_cgroups, leftover_processes
from tests.referee.toy import GAME


def test_a_match_cancelled_mid_decision_stops_and_reaps_every_bot(tmp_path: Path) -> None:
    # Unique: another run of this test on the machine must not count as our leftover.
    match_id = f"cancelled-mid-decision-{uuid.uuid4().hex[:8]}"
    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(hostile_bot(tmp_path, "nap", "2000"))),
              BotSpec.parse("builtin:random"), BotSpec.parse("builtin:random")],
        options={"rounds": 9},
        time_control=TimeControl.parse("5s+5s"),
        limits=BotLimits(memory_mib=256),
        match_id=match_id,
    )
    finished: list[object] = []

    async def main() -> None:
        # Seat 0 naps 2 s on every decision and the others answer in milliseconds, so
        # 1 s after any step seat 0 is in the middle of an Act call.
        started = trio.Event()
        spec_with_hook = dataclasses.replace(spec, on_step=lambda *_: started.set())
        with trio.fail_after(PATIENCE_S), trio.CancelScope() as scope:  # the bug was a hang
            async with trio.open_nursery() as nursery:

                async def cancel_later() -> None:
                    await started.wait()
                    await trio.sleep(1.0)
                    scope.cancel()

                nursery.start_soon(cancel_later)
                finished.append(await run_match(spec_with_hook))
        assert scope.cancelled_caught

    trio.run(main)
    assert finished == []  # it was cancelled, not played to its end
    assert leftover_processes(match_id) == []
    assert leftover_cgroups(match_id) == []
