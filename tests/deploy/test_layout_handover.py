"""Handing play over in the documented layout (:mod:`tests.deploy.layout`), a layout
of its own, in order: ``niwa ladder drain`` stops the leader cleanly (its matches
finished or handed back, the lease released, exit 0) and the standby plays on; SIGTERM
to the next leader releases the lease at once for a third runner; a Ray node whose
raylet is killed leaves no process behind."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from tests.deploy.layout import SLOW_S, Layout, done_ids, niwa_command
from tests.ladder.ray_cluster import still_running
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


def test_sigterm_to_the_leader_releases_the_lease_for_the_next_runner(layout: Layout) -> None:
    holder = wait_for("a runner leading", layout.lease_holder, SLOW_S)
    leader = next(r for r in layout.runners if r.name == holder and r.proc.poll() is None)
    spare = layout._start_runner("spare")
    wait_for("the spare standing by", lambda: spare.events("runner_standby"), SLOW_S)
    leader.proc.send_signal(signal.SIGTERM)
    assert leader.proc.wait(timeout=SLOW_S) == 0
    [released] = leader.events("lease_released")
    assert released["signal"] == "SIGTERM"
    print(f"\nlease released {released['after_signal_s']} s after SIGTERM (as {holder} timed it)")
    wait_for("the spare leading", lambda: spare.events("runner_leading"), SLOW_S)
    # it took a released lease, not one that ran out (the lease is LEASE_S = 10 s)
    assert not spare.events("lease_taken_over")
    assert layout.lease_holder() == "spare"


def test_a_killed_raylet_leaves_no_process_of_its_node(layout: Layout) -> None:
    assert layout.cluster is not None
    before = set(done_ids(layout))
    wait_for("matches on Ray again", lambda: set(done_ids(layout)) - before, SLOW_S)
    on_node_b = layout.cluster.kill_node_b()
    assert on_node_b  # its workers at least
    wait_for("every process that ran under node-b's raylet to end",
             lambda: not still_running(on_node_b), SLOW_S)  # fmt: skip
    after = set(done_ids(layout))
    wait_for("matches on the node left", lambda: set(done_ids(layout)) - after, SLOW_S)
