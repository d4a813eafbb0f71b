"""The layout harness itself: stopping it leaves no process of it running."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.layout import standing, still_running


def test_stopping_the_layout_leaves_no_process_behind(tmp_path: Path) -> None:
    if not Path("/usr/bin/bwrap").exists():
        pytest.skip("the layout's bots run sandboxed: apt-get install bubblewrap")
    with standing(tmp_path) as layout:
        started = layout.processes()
        commands = " ".join(started.values())
        # the two runners, the web front, both raylets, the PostgreSQL server
        assert commands.count("ladder serve") >= 2 and "ladder web" in commands
        assert commands.count("/raylet") >= 2 and "postgres" in commands
    assert still_running(started) == {}
