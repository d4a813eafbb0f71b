"""Sandboxed bots live as long as their match, however long it idles."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio._core._thread_cache as thread_cache

from niwa.engine import State
from niwa.referee.replay import Step
from tests.referee.sandboxing import run_against_randoms


def test_bots_survive_the_threads_trio_retires_while_the_match_idles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bwrap --die-with-parent kills a bot when the thread that spawned it exits; trio
    # retires idle worker threads (after 10 s, here 10 ms). Pause the match past that.
    monkeypatch.setattr(thread_cache, "IDLE_TIMEOUT", 0.01)
    paused = False

    def pause_once(step: Step, before: State, after: State) -> None:
        nonlocal paused
        if not paused and step.kind == "decision":
            paused = True
            time.sleep(0.5)

    outcome, _ = run_against_randoms("builtin:random", tmp_path, on_step=pause_once)
    assert paused
    assert [s.status for s in outcome.seats] == ["ok", "ok", "ok"]
