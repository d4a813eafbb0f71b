"""The runner's start-up: it cleans what a killed run left, and it refuses to play
sandboxed bots whose limits this machine cannot enforce."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from niwa.ladder import submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, FAILED, QUEUED, Store
from niwa.referee.cgroups import ROOT_ENV, LimitsUnavailable


def dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_a_restarted_runner_removes_the_partial_replays_a_killed_run_left(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    (data / "replays").mkdir(parents=True)
    partial = data / "replays" / f"3.jsonl.{dead_pid()}.part"
    partial.write_text('{"kind": "header"}\n')
    settings = Settings(db_url=str(data / "ladder.db"), data_dir=data, max_matches=0)
    Runner(settings).run(threading.Event())
    assert not partial.exists()


def test_a_runner_without_cgroups_refuses_sandboxed_bots_and_keeps_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-cgroups"
    empty.mkdir()
    monkeypatch.setenv(ROOT_ENV, str(empty))  # the worker processes inherit it
    db = tmp_path / "ladder.db"
    store = Store.open(str(db))
    for k in range(3):
        submission.builtin_bot(store, "random", "blossom", ACTIVE, alias=f"random-{k}")
    store.close()
    settings = Settings(
        db_url=str(db), workers=1, max_matches=1, games=("blossom",),
        builtins_in_process=False,  # built-in bots sandboxed, like submissions
    )  # fmt: skip
    with pytest.raises(LimitsUnavailable, match="no memory limit"):
        Runner(settings).run(threading.Event())
    store = Store.open(str(db))
    matches = store.matches.matches(limit=10)
    assert matches and {m.state for m in matches} == {QUEUED}  # handed back, not failed
    assert FAILED not in {m.state for m in matches}
    store.close()
