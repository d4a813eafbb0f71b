"""``niwa play`` with built-in bots in process: narration, replay, usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.cli import main
from referee import replay

RANDOM3 = ["--bot", "builtin:random"] * 3


def test_play_narrates_moves_and_prints_the_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "blossom", *RANDOM3, "--seed", "7", "--in-process"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("blossom: 3 players, seed 7, time 1s+30s")
    assert "seat 0 (builtin:random): " in out
    assert "result:\n  1. seat " in out


def test_play_with_the_same_seed_prints_the_same_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["play", "blossom", *RANDOM3, "--seed", "7", "--in-process"])
    first = capsys.readouterr().out
    main(["play", "blossom", *RANDOM3, "--seed", "7", "--in-process"])
    second = capsys.readouterr().out
    strip = lambda text: [ln for ln in text.splitlines() if "decisions in" not in ln]  # noqa: E731
    assert strip(first) == strip(second)


def test_play_writes_a_replay_that_verifies(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    assert main(["play", "blossom", *RANDOM3, "--seed", "7", "--in-process", "--quiet",
                 "--replay", str(path)]) == 0
    r = replay.read(path)
    assert r.header.version == "blossom@1" and r.result is not None
    assert replay.verify(r) == len(r.steps)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess", *RANDOM3], "unknown game 'chess'; registered games: "),
        (["play", "blossom", "--bot", "builtin:random"], "blossom is played by "),
        (["play", "blossom", *RANDOM3, "--option", "nope=1"], "blossom has no option 'nope'"),
        (["play", "blossom", "--bot", "builtin:nobody", *RANDOM3[:4]], "no built-in bot"),
        (["play", "blossom", *RANDOM3, "--time", "soon"], "bad time control 'soon'"),
        (["play", "blossom", "--bot", "/nonexistent", *RANDOM3[:4]], "is not a directory"),
    ],
)
def test_bad_play_arguments_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("niwa play: error: ") and message in err
    assert err.count("\n") == 1
