"""The documented layout (:mod:`tests.deploy.layout`): the web front on its own node
serves the matches the runners played on Ray, outlives a restart of PostgreSQL, every
part's readiness follows the database, their metrics parse, and a Python bot submitted
to the runners plays on the cluster (from a working directory holding a ``bots/``
folder)."""

from __future__ import annotations

import hashlib
import html
import json
import subprocess
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests import postgres
from tests.deploy.layout import SLOW_S, Layout, done_ids, niwa_command
from tests.polling import wait_for
from tests.web.served import get

PYTHON_BOT = Path(__file__).resolve().parents[2] / "examples" / "python-bot"


def test_the_web_front_serves_every_page_of_the_matches_played_on_ray(layout: Layout) -> None:
    assert layout.web is not None
    done = wait_for("a match finished through the runners", lambda: done_ids(layout), SLOW_S)
    # either runner: under load the first leader may lose its lease to the standby while
    # it connects to Ray (seen at load 8 with this layout's 10 s lease); both play on Ray
    ran = {e["match"]: e["ran_on"] for r in layout.runners for e in r.events("match_ran")}
    assert set(done) <= set(ran), f"finished {done}, the runners ran {ran} on Ray"
    store = layout.store()
    try:
        recorded = {m: store.matches.match(m).replay_sha256 for m in done}
    finally:
        store.close()
    web = layout.web.address
    for path in ("/", "/games/blossom", "/matches", "/bots/1"):
        assert get(web + path)[0] == 200, path
    for match_id, sha256 in recorded.items():
        status, body, _ = get(f"{web}/matches/{match_id}")
        assert status == 200 and 'id="niwa-payload"' in body, body
        request = f"{web}/matches/{match_id}/replay.jsonl"
        status, replay, _ = get(request)
        assert status == 200 and hashlib.sha256(replay.encode()).hexdigest() == sha256
    assert list(layout.web.data.iterdir()) == []  # all of it came from the store


# Ray puts a runner's working directory on its workers' path: when niwa's SDK was the
# top-level package ``bots``, the ``bots/`` folder there hid it ("No module named 'bots'").
def test_a_python_bot_submitted_to_the_runners_passes_validation_on_ray(
    layout: Layout, tmp_path: Path
) -> None:
    token = layout.user("alice")
    done = subprocess.run(
        [niwa_command(), "ladder", "submit", str(PYTHON_BOT), "--server",
         layout.leader.address, "--token", token, "--wait-timeout", str(SLOW_S)],
        capture_output=True, text=True, timeout=SLOW_S + 60, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and "accepted" in done.stdout, done.stdout + done.stderr


def test_the_web_front_answers_503_while_postgresql_restarts_and_pages_after(
    layout: Layout,
) -> None:
    assert layout.postgres is not None and layout.web is not None
    web = layout.web.address
    assert get(f"{web}/matches")[0] == 200
    runners = [r.http for r in layout.runners]
    assert [get(f"{url}/readyz")[0] for url in [web, *runners]] == [200, 200, 200]
    with postgres.down(layout.postgres):
        status, body, _ = get(f"{web}/matches")
        unready = [get(f"{url}/readyz")[0] for url in [web, *runners]]
        alive = [get(f"{url}/healthz")[0] for url in [web, *runners]]
    assert status == 503 and "does not answer; retry shortly" in html.unescape(body)
    assert unready == [503, 503, 503] and alive == [200, 200, 200]
    assert get(f"{web}/matches")[0] == 200  # the first request after the restart
    assert [e["path"] for e in layout.web.events("store_unavailable")] == ["/matches"]
    # the runners come back too, for the checks after this one
    wait_for("a runner leading again", layout.lease_holder, SLOW_S)
    wait_for("every part ready again",
             lambda: all(get(f"{url}/readyz")[0] == 200 for url in [web, *runners]), SLOW_S)


def samples(url: str) -> dict[str, float]:
    """Every sample of a /metrics page as Prometheus parses it: name{labels} -> value."""
    status, text, headers = get(f"{url}/metrics", accept="text/plain")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    return {
        f"{s.name}{json.dumps(s.labels, sort_keys=True) if s.labels else ''}": s.value
        for family in text_string_to_metric_families(text) for s in family.samples
    }  # fmt: skip


def test_the_runners_and_the_web_front_export_metrics_that_parse(layout: Layout) -> None:
    assert layout.web is not None
    done = wait_for("a match finished through the runners", lambda: done_ids(layout), SLOW_S)
    holder = wait_for("a runner leading", layout.lease_holder, SLOW_S)
    leader = next(r for r in layout.runners if r.name == holder)
    standby = next(r for r in layout.runners if r.name != holder)
    on_leader = wait_for(  # the gauges follow the runner's state within a few seconds
        "the leader's metrics", lambda: (m := samples(leader.http))["niwa_runner_leader"] == 1
        and m)  # fmt: skip
    assert samples(standby.http)["niwa_runner_leader"] == 0
    finished = sum(v for k, v in on_leader.items() if k.startswith("niwa_matches_finished_total"))
    recorded_here = {e["match"] for e in leader.events("match_recorded")}
    assert finished == len(recorded_here) and set(done) & recorded_here
    assert on_leader["niwa_database_up"] == 1
    assert on_leader["niwa_ray_nodes"] == 2  # the head and the second node
    web = samples(layout.web.address)
    assert any(k.startswith("niwa_web_request_seconds_count") for k in web)
