"""A server process's log set-up (niwa.ladder.logs.configure_server): what other libraries
log through the standard logging module comes out as the server's own JSON events."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


def run_server_logging(code: str, log_format: str) -> list[str]:
    """stderr lines of a fresh interpreter that set up a server's logs, then ran ``code``
    (a fresh process: the set-up is process-wide)."""
    script = textwrap.dedent(f"""
        import logging, warnings, structlog
        from niwa.ladder import logs
        logs.configure_server("info", {log_format!r}, node="node-x")
    """) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    return done.stderr.splitlines()


def test_a_library_warning_through_stdlib_logging_is_a_json_event_naming_the_node() -> None:
    lines = run_server_logging(
        'logging.getLogger("hypercorn.error").warning("socket %s closed", "x")', "json"
    )
    assert [json.loads(line) for line in lines] == [
        {**json.loads(lines[0]), "event": "socket x closed", "logger": "hypercorn.error",
         "level": "warning", "node": "node-x"}
    ]  # fmt: skip


def test_library_info_is_left_out() -> None:
    assert run_server_logging('logging.getLogger("ray").info("connecting")', "json") == []


def test_python_warnings_are_json_events_too() -> None:
    lines = run_server_logging('warnings.warn("old call")', "json")
    assert len(lines) == 1 and "old call" in json.loads(lines[0])["event"]


def test_console_format_gives_readable_lines() -> None:
    lines = run_server_logging('structlog.get_logger().info("hello")', "console")
    assert len(lines) == 1 and "hello" in lines[0] and "node=node-x" in lines[0]
    assert not lines[0].startswith("{")


def test_a_bound_node_wins_over_the_process_default() -> None:
    lines = run_server_logging('structlog.get_logger().bind(node="worker-1").info("hello")', "json")
    assert json.loads(lines[0])["node"] == "worker-1"


def test_rays_own_logger_is_routed_to_structlog_once_adopted() -> None:
    lines = run_server_logging(
        'import ray\nlogs.adopt("ray")\nlogging.getLogger("ray").warning("head gone")', "json"
    )
    assert [json.loads(line)["event"] for line in lines] == ["head gone"]


def test_a_servers_startup_error_is_a_json_event_when_json_is_asked_for(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", str(tmp_path / "none.db"),
         "--log-format", "json", "--node", "web-1"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    events = [json.loads(line) for line in done.stderr.splitlines()]
    assert done.returncode == 2
    assert [(e["event"], e["node"]) for e in events] == [("cannot_serve", "web-1")]
    assert "no ladder store at" in events[0]["error"]
