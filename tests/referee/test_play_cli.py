"""``niwa play`` with built-in bots in process: narration, replay, usage errors."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.bots import builtin
from niwa.cli import build_parser, main
from niwa.referee import replay
from niwa.referee.replay import check as replay_check

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
    assert r.header.version == "blossom@2" and r.result is not None
    assert replay_check.verify(r) == len(r.steps)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess", *RANDOM3], "unknown game 'chess'; registered games: "),
        (["play", "blossom", "--bot", "builtin:random"], "blossom is played by "),
        (["play", "blossom", *RANDOM3, "--option", "nope=1"], "blossom has no option 'nope'"),
        (["play", "blossom", "--bot", "builtin:nobody", *RANDOM3[:4]], "no built-in bot"),
        (["play", "blossom", *RANDOM3, "--time", "soon"], "bad time control 'soon'"),
        (["play", "blossom", "--bot", "MISSING", *RANDOM3[:4]], "is not a directory"),
    ],
)
def test_bad_play_arguments_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "no-such-bot")  # a folder that surely does not exist
    assert main([missing if a == "MISSING" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("niwa play: error: ") and message in err
    assert err.count("\n") == 1


def test_a_built_in_bot_going_out_is_not_a_failing_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 1 is for a bot directory (yours) that went out; built-ins are the field."""
    monkeypatch.setitem(builtin.BUILTIN, "oor", "tests.referee.inproc_bots:OutOfRange")
    argv = ["play", "blossom", "--bot", "builtin:oor", *RANDOM3[:2], "--seed", "3",
            "--in-process", "--quiet"]
    assert main(argv) == 0
    assert "OUT (ILLEGAL at step " in capsys.readouterr().out


def _options(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    """Every argument of ``parser`` and of its sub-commands, with its command path."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _options(sub)
        elif not isinstance(action, argparse._HelpAction):
            yield f"{parser.prog} {action.dest}", action


@pytest.mark.parametrize("command", ["play", "replay"])
def test_every_option_of_play_and_replay_has_help_text(command: str) -> None:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [name for name, action in _options(sub.choices[command]) if not action.help]
    assert missing == []


@pytest.mark.parametrize("argv", [["play", "--help"], ["replay", "verify", "--help"],
                                  ["replay", "show", "--help"], ["replay", "ask", "--help"]])
def test_the_help_lists_the_exit_codes(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    out = capsys.readouterr().out
    assert "exit status:\n  0  " in out and "\n  1  " in out and "\n  2  " in out
