"""Per-decision debug text (``ActReply.debug``), with a real sandboxed bot: kept in the
replay's moves (cut at 2 KiB with a marker), not rated by ``replay verify``, shown by
``replay show`` (per step and whole with ``--at``) and by ``niwa play --debug``."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from niwa.bots.sdk import DEBUG_LIMIT
from niwa.cli import main
from niwa.referee import replay
from niwa.referee.replay import Move, Replay
from niwa.referee.replay import check as replay_check
from tests.referee.sandboxing import hostile_bot, run_against_randoms
from tests.referee.toy import GAME

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def seat0(r: Replay) -> list[Move]:
    return [m for s in r.steps for m in s.moves if m.seat == 0]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Replay, str]:
    """``niwa play --debug`` of a blossom match where seat 0 attaches a few lines of
    debug text to every answer: the replay path, the replay, and what play printed."""
    root = tmp_path_factory.mktemp("debug")
    root.chmod(0o755)
    path = root / "m.jsonl"
    capture = io.StringIO()
    with contextlib.redirect_stdout(capture):
        code = main(["play", "blossom", "--bot", str(hostile_bot(root, "debug", "10")),
                     "--bot", "builtin:random", "--seed", "3", "--debug",
                     "--replay", str(path)])
    assert code == 0
    return path, replay.read(path), capture.getvalue()


@pytest.fixture
def debug_replay(played: tuple[Path, Replay, str]) -> tuple[Path, Replay]:
    return played[0], played[1]


def test_play_with_debug_prints_each_moves_debug_text_escaped_under_it(
    played: tuple[Path, Replay, str],
) -> None:
    _, r, out = played
    lines = out.splitlines()
    first = next(i for i, ln in enumerate(lines) if ": " in ln and "# with debug" in ln)
    assert lines[first + 1].startswith("        debug| decision ")
    assert lines[first + 2] == "        debug| \\x1b[31mred"
    assert out.count("        debug| ") == 3 * len(seat0(r))
    assert "\x1b" not in out


def test_play_without_debug_prints_no_debug_text(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    capture = io.StringIO()
    with contextlib.redirect_stdout(capture):
        main(["play", "blossom", "--bot", str(hostile_bot(tmp_path, "debug", "10")),
              "--bot", "builtin:random", "--seed", "3"])
    assert "# with debug" in capture.getvalue() and "debug|" not in capture.getvalue()


def test_a_bots_debug_text_is_kept_in_each_of_its_moves(
    debug_replay: tuple[Path, Replay],
) -> None:
    _, r = debug_replay
    moves = seat0(r)
    assert {m.status for m in moves} == {"OK"}
    first = moves[0]
    step = next(s.index for s in r.steps if first in s.moves)
    assert first.debug == f"decision {step}\n\x1b[31mred\n" + "d" * 10


def test_moves_without_debug_text_have_no_debug_field_in_the_file(
    debug_replay: tuple[Path, Replay],
) -> None:
    path, _ = debug_replay
    moves = [m for line in path.read_text().splitlines()[1:-1]
             for m in json.loads(line)["moves"]]
    assert all("debug" in m for m in moves if m["seat"] == 0)
    assert not any("debug" in m for m in moves if m["seat"] != 0)


def test_a_replay_with_debug_text_verifies(
    debug_replay: tuple[Path, Replay], capsys: pytest.CaptureFixture[str]
) -> None:
    path, r = debug_replay
    assert replay_check.verify(replay.read(path)) == len(r.steps)
    assert main(["replay", "verify", str(path)]) == 0
    assert ": ok: " in capsys.readouterr().out


def test_replay_show_prints_the_debug_text_escaped_under_each_move(
    debug_replay: tuple[Path, Replay], capsys: pytest.CaptureFixture[str]
) -> None:
    path, r = debug_replay
    assert main(["replay", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("        debug| \\x1b[31mred") == len(seat0(r))
    assert "\x1b" not in out


def test_replay_show_at_a_step_prints_its_whole_debug_text(
    debug_replay: tuple[Path, Replay], capsys: pytest.CaptureFixture[str]
) -> None:
    path, r = debug_replay
    step = next(s for s in r.steps if any(m.seat == 0 for m in s.moves))
    assert main(["replay", "show", str(path), "--at", str(step.index), "--seat", "0"]) == 0
    out = capsys.readouterr().out
    below = out.split("seat 0 debug:\n", 1)[1].splitlines()
    assert below[:3] == [f"        debug| decision {step.index}",
                         "        debug| \\x1b[31mred", "        debug| " + "d" * 10]


def test_debug_text_past_2_kib_is_cut_with_a_marker_and_still_verifies(
    tmp_path: Path,
) -> None:
    tmp_path.chmod(0o755)
    _, r = run_against_randoms(hostile_bot(tmp_path, "debug", str(100 << 10)), tmp_path)
    moves = seat0(r)
    assert {m.status for m in moves} == {"OK"}  # a long debug text is not a failure
    for step in r.steps:
        for m in step.moves:
            if m.seat != 0:
                continue
            sent = len(f"decision {step.index}\n\x1b[31mred\n".encode()) + (100 << 10)
            assert len(m.debug.encode()) <= DEBUG_LIMIT
            assert m.debug.startswith(f"decision {step.index}\n")
            assert m.debug.endswith(f"d [debug cut at {DEBUG_LIMIT} bytes: {sent} sent]")
    assert replay_check.verify(r, GAME) == len(r.steps)
