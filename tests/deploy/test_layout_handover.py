"""Handing play over in the documented layout (:mod:`tests.deploy.layout`), a layout
of its own: ``niwa ladder drain`` stops the leader cleanly (its matches finished or
handed back, the lease released, exit 0) and the standby plays on."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.deploy.layout import SLOW_S, Layout, done_ids, niwa_command
from tests.polling import PATIENCE_S, wait_for


def test_draining_the_leader_lets_the_standby_play_on(layout: Layout, tmp_path: Path) -> None:
    wait_for("a match finished through the runners", lambda: done_ids(layout), SLOW_S)
    holder = wait_for("a runner leading", layout.lease_holder, SLOW_S)
    leader = next(r for r in layout.runners if r.name == holder)
    drained = subprocess.run(
        [niwa_command(), "ladder", "drain", "--db", layout.url, "--node", holder,
         "--deadline", str(SLOW_S)],
        capture_output=True, text=True, timeout=2 * SLOW_S, check=False, cwd=tmp_path,
        env=layout._env("setup"),
    )  # fmt: skip
    assert drained.returncode == 0, drained.stdout + drained.stderr
    assert f"{holder} drained" in drained.stdout
    assert leader.proc.wait(timeout=PATIENCE_S) == 0
    other = wait_for("the standby leading", lambda: (h := layout.lease_holder()) != holder and h,
                     SLOW_S)  # fmt: skip
    before = set(done_ids(layout))
    wait_for("a match the new leader finished", lambda: set(done_ids(layout)) - before, SLOW_S)
    successor = next(r for r in layout.runners if r.name == other)
    recorded = [e["match"] for r in (leader, successor) for e in r.events("match_recorded")]
    assert len(recorded) == len(set(recorded))  # no match recorded twice
