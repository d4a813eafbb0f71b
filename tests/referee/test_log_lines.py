"""Every logged event is one whole line, even when several threads of a process log at
once (the ladder's runner, its lease heartbeat and its web server share one stderr)."""

from __future__ import annotations

import io
import json
import sys
import threading

import pytest
import structlog

from niwa.referee.logs import configure


class SlowStream(io.StringIO):
    """A stream that gives up the GIL between writes, as a real file does."""

    def write(self, text: str) -> int:
        written = super().write(text)
        threading.Event().wait(0.0001)
        return written


def test_events_from_several_threads_are_whole_json_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = SlowStream()
    monkeypatch.setattr(sys, "stderr", stream)
    configure("info", json=True)

    def log(name: str) -> None:
        for i in range(200):
            structlog.get_logger().info("tick", thread=name, i=i)

    threads = [threading.Thread(target=log, args=(f"t{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 800
    assert {json.loads(line)["event"] for line in lines} == {"tick"}
