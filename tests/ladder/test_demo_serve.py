"""``niwa ladder demo --serve`` keeps playing while it serves: a bot submitted then is
validated and plays rated matches (a real demo process, a real sandboxed bot)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import wait_for
from tests.ladder.tiny_bots import QUICK, cli, write_bot


def test_the_demo_plays_a_bot_submitted_while_it_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["ladder", "user", "add", "alice", "--db", str(data / "ladder.db")]) == 0
    token = capsys.readouterr().out.split()[-1]
    bot = write_bot(tmp_path, "quick", "0.2.0", QUICK)
    log = tmp_path / "demo.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "demo", "--serve", "--data", str(data),
         "--matches", "1", "--workers", "1", "--seed", "1", "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        address = ""
        for line in proc.stdout:
            found = re.search(r"serving on (\S+)", line)
            if found:
                address = found.group(1)
                break
        assert address, log.read_text()
        code, out = cli("ladder", "submit", str(bot), "--server", address, "--token", token)
        assert code == 0 and "(quick@0.2.0, blossom): accepted" in out, out
        channel, stub = client.connect(address)
        try:
            def rated() -> list[pb.Match]:
                listing = stub.ListMatches(pb.ListMatchesRequest(bot="quick", state="done"))
                return [m for m in listing.matches if m.kind == "rated"]

            assert wait_for("a rated match of the submitted bot", rated)
        finally:
            channel.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait()
