"""A bot's failures are never silent: ``niwa play``, ``match`` and ``tournament`` list
them by class with the first detail, ``--fail-on any`` makes any of them exit 1, and
bots are named ``name@version``. Real sandboxed bot processes (tests/referee/hostile)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import replay
from tests.referee.sandboxing import hostile_bot

ILLEGAL_DETAIL = 'action {"no such":"action"} is not legal here'
SERIES = ["--time", "1s+5s", "--concurrency", "2", "--seed", "1"]


@pytest.fixture
def sometimes(tmp_path: Path) -> Path:
    """A bot (``hostile-illegal-at@0``) whose second answer is illegal, once: below
    the strike limit, so its seat stays in."""
    tmp_path.chmod(0o755)
    return hostile_bot(tmp_path, "illegal-at", "2")


def play(bot: Path, *extra: str) -> list[str]:
    return ["play", "blossom", "--bot", str(bot), "--bot", "builtin:random", "--seed", "3",
            "--quiet", *extra]


def test_play_lists_an_illegal_answer_below_the_strike_limit_and_exits_0_by_default(
    sometimes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(play(sometimes)) == 0
    result = capsys.readouterr().out.split("result:\n", 1)[1].splitlines()
    mine = next(i for i, line in enumerate(result) if "seat 0 hostile-illegal-at@0 " in line)
    assert "OUT" not in result[mine]
    assert result[mine + 1].startswith("       ILLEGAL x1, first at step ")
    assert result[mine + 1].endswith(f": {ILLEGAL_DETAIL}")


def test_play_with_fail_on_any_exits_1_on_a_single_illegal_answer(
    sometimes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(play(sometimes, "--fail-on", "any")) == 1
    assert "ILLEGAL x1, first at step " in capsys.readouterr().out


def test_play_names_bots_by_name_at_version_in_its_output_and_replay(
    sometimes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.jsonl"
    main(["play", "blossom", "--bot", str(sometimes), "--bot", "builtin:random", "--seed", "3",
          "--replay", str(path)])
    out = capsys.readouterr().out
    assert "seat 0 (hostile-illegal-at@0): " in out and str(sometimes) not in out
    header = replay.read(path).header
    assert [s.bot for s in header.seats] == ["hostile-illegal-at@0", "builtin:random"]


def test_play_tells_two_folders_of_the_same_name_at_version_apart_by_their_paths(
    sometimes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy" / sometimes.name
    copy.parent.mkdir(mode=0o755)
    shutil.copytree(sometimes, copy)
    main(["play", "blossom", "--bot", str(sometimes), "--bot", str(copy), "--seed", "3",
          "--quiet"])
    out = capsys.readouterr().out
    assert f"hostile-illegal-at@0 ({tmp_path.name}/{sometimes.name})" in out
    assert f"hostile-illegal-at@0 (copy/{sometimes.name})" in out


def test_match_lists_failures_in_its_output_and_json_and_exits_0_by_default(
    sometimes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "series.jsonl"
    argv = ["match", "blossom", "--bot", str(sometimes), "--bot", "builtin:random",
            "--games", "2", "--json", str(out), "--replays", str(tmp_path / "r"), *SERIES]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "  A = hostile-illegal-at@0" in printed
    assert "hostile-illegal-at@0: first ILLEGAL in game " in printed
    assert "failures (count, and the first reported):" in printed
    assert "  hostile-illegal-at@0: ILLEGAL x2, first in game " in printed  # one per game
    *games, summary = [json.loads(line) for line in out.read_text().splitlines()]
    for game in games:
        seat = next(s for s in game["seats"] if s["bot"] == "hostile-illegal-at@0")
        assert seat["failures"] == {"ILLEGAL": 1}
        assert seat["first_failures"]["ILLEGAL"]["detail"] == ILLEGAL_DETAIL
    line = summary["bots"]["hostile-illegal-at@0"]
    assert line["failures"]["ILLEGAL"] == 2
    assert line["first_failures"]["ILLEGAL"]["detail"] == ILLEGAL_DETAIL
    seats = {s.bot for r in (tmp_path / "r").glob("*.jsonl") for s in replay.read(r).header.seats}
    assert seats == {"hostile-illegal-at@0", "builtin:random"}


def test_match_with_fail_on_any_exits_1_on_an_illegal_answer(sometimes: Path) -> None:
    argv = ["match", "blossom", "--bot", str(sometimes), "--bot", "builtin:random",
            "--games", "2", "--fail-on", "any", *SERIES]
    assert main(argv) == 1


def test_tournament_lists_failures_under_the_standings_and_fails_on_any(
    sometimes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tournament", "blossom", "--bot", str(sometimes), "--bot", "builtin:random",
            *SERIES]
    assert main([*argv, "--replays", str(tmp_path / "r")]) == 0
    printed = capsys.readouterr().out
    standings = printed.split("rank  bot", 1)[1]
    assert "failures (count, and the first reported):" in standings
    assert "  hostile-illegal-at@0: ILLEGAL x2, first in game " in standings
    seats = {s.bot for r in (tmp_path / "r").glob("*.jsonl") for s in replay.read(r).header.seats}
    assert seats == {"hostile-illegal-at@0", "builtin:random"}
    assert main([*argv, "--fail-on", "any"]) == 1
