"""The documented layout (:mod:`tests.deploy.layout`): the web front on its own node
serves the matches the runners played on Ray, outlives a restart of PostgreSQL, and a
Python bot submitted to the runners plays on the cluster."""

from __future__ import annotations

import hashlib
import html
import subprocess
from pathlib import Path

from tests import postgres
from tests.deploy.layout import SLOW_S, Layout, done_ids, niwa_command
from tests.polling import wait_for
from tests.web.served import get

PYTHON_BOT = Path(__file__).resolve().parents[2] / "examples" / "python-bot"


def test_the_web_front_serves_every_page_of_the_matches_played_on_ray(layout: Layout) -> None:
    assert layout.web is not None
    done = wait_for("a match finished through the runners", lambda: done_ids(layout), SLOW_S)
    ran = {e["match"]: e["ran_on"] for e in layout.leader.events("match_ran")}
    assert set(done) <= set(ran), f"finished {done}, the leader ran {ran} on Ray"
    store = layout.store()
    try:
        recorded = {m: store.match(m).replay_sha256 for m in done}
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


# Fails until niwa's packages move under ``niwa.``: Ray puts a runner's working
# directory on its workers' path, and the ``bots/`` folder there hides niwa's ``bots``
# from the bot ("No module named 'bots'"); without that folder it passes.
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
    with postgres.down(layout.postgres):
        status, body, _ = get(f"{web}/matches")
    assert status == 503 and "does not answer; retry shortly" in html.unescape(body)
    assert get(f"{web}/matches")[0] == 200  # the first request after the restart
    assert [e["path"] for e in layout.web.events("store_unavailable")] == ["/matches"]
    # the runners come back too, for the checks after this one
    wait_for("a runner leading again", layout.lease_holder, SLOW_S)
