"""The CI kit (examples/ci): its script, run as the workflow runs it, against a real
ladder served by the test, with two sandboxed versions of one bot."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import start_ladder, stop
from tests.ladder.tiny_bots import owner_tokens

KIT = Path(__file__).resolve().parents[2] / "examples" / "ci"
SCRIPT = KIT / "niwa-ci.sh"
H0_EXIT = 3  # docs/series.md, "Exit codes"


def version(root: Path, label: str, number: str, builtin: str) -> Path:
    """One version of the bot "gated": a folder whose command serves a built-in bot."""
    folder = root / label
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "gated"\nversion = "{number}"\ngames = ["blossom"]\n'
        f'command = ["python3", "-m", "niwa.bots.builtin", "{builtin}"]\n'
    )
    return folder


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("ci")
    db = root / "ladder.db"
    token = owner_tokens(db, admins=(), owners=("alice",))["alice"]
    proc, address = start_ladder(db, root / "ladder.log", "--game", "blossom")
    try:
        yield address, token, root
    finally:
        stop(proc)


def run_kit(new: Path, old: Path, address: str, token: str, root: Path) -> int:
    """niwa-ci.sh NEW OLD, with the workflow's variables and niwa on PATH."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "NIWA_GAME": "blossom",
        "NIWA_SPRT": "elo0=0 elo1=200",  # loose: greedy against random decides in tens
        "NIWA_GAMES": "60",
        "NIWA_MATCH_ARGS": "--seed 1 --time 0.5s+10s --concurrency 2",
        "NIWA_JSON": str(root / f"{new.name}.jsonl"),
        "NIWA_SERVER": address,
        "NIWA_TOKEN": token,
    }
    return subprocess.run([str(SCRIPT), str(new), str(old)], env=env, cwd=root,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def gated(address: str) -> list[pb.LadderBot]:
    """Every version of the bot "gated" the ladder holds, whatever its status."""
    channel, stub = client.connect(address)
    try:
        listing = stub.ListBots(pb.ListBotsRequest(all=True))
    finally:
        channel.close()
    return [b for b in listing.bots if b.name == "gated"]


def test_the_workflow_runs_the_kit_script() -> None:
    assert "run: ./ci/niwa-ci.sh . ../old" in (KIT / "niwa-bot.yml").read_text()


def gate(ladder: tuple[str, str, Path], new: tuple[str, str], old: tuple[str, str]) -> int:
    """The kit's exit status for a new and an old (version, built-in) of "gated"."""
    address, token, root = ladder
    folders = [version(root, f"{role}-{number}", number, builtin)
               for role, (number, builtin) in (("new", new), ("old", old))]
    return run_kit(folders[0], folders[1], address, token, root)


def test_a_weaker_new_version_fails_the_job_with_h0_and_is_not_submitted(
    ladder: tuple[str, str, Path],
) -> None:
    assert gate(ladder, new=("3.0.0", "random"), old=("2.0.0", "greedy")) == H0_EXIT
    assert [b.version for b in gated(ladder[0])] == []


def test_a_stronger_new_version_is_submitted_on_h1_and_listed_on_the_ladder(
    ladder: tuple[str, str, Path],
) -> None:
    assert gate(ladder, new=("2.0.0", "greedy"), old=("1.0.0", "random")) == 0
    assert [b.version for b in gated(ladder[0])] == ["2.0.0"]
