"""docs/rl.md, "From pip install to a rated ladder bot": the block runs as it stands,
from training to a rated match on a ladder the test serves (its sandboxed bot, the real
sandbox and gRPC)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install niwa[rl])")

from tests.ladder.serving import start_ladder, stop
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rl.md"
BOT = "policy-sakura"  # niwa bot from-policy's default name


def doc_commands() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## From `pip install` to a rated ladder bot") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def run(words: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip


def leaderboard(address: str, cwd: Path) -> Any:
    done = run([sys.executable, "-m", "niwa", "ladder", "leaderboard", "sakura", "--json",
                "--server", address], cwd)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def rated_games(board: Any) -> int:
    """Our bot's rated matches on the board (0 while it is not on it)."""
    rows = [r for b in board.get("boards", [board]) for r in b.get("rows", [])]
    return sum(int(r.get("games", 0)) for r in rows if BOT in json.dumps(r))


def rated_once(address: str, cwd: Path) -> bool:
    return rated_games(leaderboard(address, cwd)) >= 1


def test_the_docs_road_from_training_to_a_rated_ladder_bot_runs(tmp_path: Path) -> None:
    commands = doc_commands()
    assert commands[0] == "pip install 'niwa[rl]'"  # this test runs in such an install
    token = address = ""
    ladder = None
    try:
        for line in commands[1:]:
            words = shlex.split(line.rstrip(" &").replace('"$TOKEN"', token))
            words = [address if w == "localhost:50051" else w for w in words]
            if words[0] == "python":
                words = [sys.executable, str(ROOT / words[1]), *words[2:]]
            else:
                assert words[0] == "niwa", line
                words = [sys.executable, "-m", *words]
            if line.endswith("&"):  # the ladder, served for the rest of the block
                assert words[3:7] == ["ladder", "serve", "--db", "ladder.db"], line
                ladder, address = start_ladder(tmp_path / "ladder.db", tmp_path / "ladder.log",
                                               *words[7:])  # fmt: skip
                continue
            done = run(words, tmp_path)
            assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
            if words[3:6] == ["ladder", "user", "add"]:
                token = done.stdout.split()[-1]
            if words[3:5] == ["ladder", "submit"]:  # rated once it played a sparring partner
                wait_for(f"{BOT}'s first rated match", partial(rated_once, address, tmp_path))
        assert BOT in done.stdout  # the doc's last command: the leaderboard shows it
    finally:
        if ladder is not None:
            stop(ladder)
    assert (tmp_path / "policy.npz").is_file() and (tmp_path / "mybot" / "bot.toml").is_file()
