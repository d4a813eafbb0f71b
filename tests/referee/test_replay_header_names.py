"""A replay's header fields that name things (the match id names the bots' cgroups,
log files and NIWA_MATCH; game and version pick the rules) are validated when the file
is read: every command that reads a replay gives one line naming the field and exit
code 2 before anything is named after them. Cgroup naming refuses such names on its own too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from niwa.engine import canonical_json
from niwa.referee.cgroups import Cgroup, UnsafeName
from niwa.referee.sandbox import BotLimits
from tests.referee.sandboxing import cgroups_named
from tests.referee.test_replay_malformed import _assert_one_line_error, _run, real

__all__ = ["real"]  # the fixture, shared with the malformed-replay tests

BAD_NAMES = {
    "nul": "m\0x",
    "slash": "../../../sys/fs/cgroup/escape",
    "dotdot": "a..b",
    "long": "m" * 65,
    "escape": "m\x1b[31m",
    "newline": "m\nforged",
    "empty-dir": "/",
}
NAMING_FIELDS = ("match_id", "game", "version")


def _with_header(real: Path, tmp_path: Path, field: str, value: str) -> Path:
    lines = real.read_text().splitlines()
    header = json.loads(lines[0])
    *parents, last = field.split(".")
    d = header
    for key in parents:
        d = d[int(key)] if isinstance(d, list) else d[key]
    d[last] = value
    lines[0] = canonical_json(header)
    path = tmp_path / "forged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("kind", sorted(BAD_NAMES))
@pytest.mark.parametrize("field", NAMING_FIELDS)
def test_a_header_field_that_names_something_is_refused_by_name(
    field: str, kind: str, real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_header(real, tmp_path, field, BAD_NAMES[kind])
    shown = field.replace(".0.", "[0].")
    _assert_one_line_error(path, capsys, f"field '{shown}'")


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("started", "2026\x00", "control characters"),
        ("started", "2" * 65, "over 64 characters"),
        ("seats.1.bot", "gardener\x1b]0;owned\x07", "control characters"),
        ("seats.1.bot", "/b" * 2049, "over 4096 characters"),
        ("seats.1.name", "random\nforged", "control characters"),
        ("seats.1.name", "m" * 257, "over 256 characters"),
        ("seats.1.version", "1\x1b[31m", "control characters"),
    ],
)
def test_header_free_text_is_bounded_and_printable(
    field: str, value: str, why: str, real: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path = _with_header(real, tmp_path, field, value)
    _assert_one_line_error(path, capsys, field.replace(".1.", "[1]."), why)


def test_a_builtin_seat_name_with_its_options_reads(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A seat's name names nothing a reader makes; a built-in's carries its options (the
    # demo's mcts?seconds=0.03). Only the re-simulation's comparison may refuse it.
    path = _with_header(real, tmp_path, "seats.0.name", "mcts?seconds=0.03")
    code, out, err = _run(["replay", "show", str(path)], capsys)
    assert (code, err) == (0, "")
    assert "builtin:random" in out


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox's cgroups need root")
def test_ask_with_a_slash_in_the_match_id_runs_no_bot(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The review's case: a "/" in the id made the sandboxed bot run without its cgroup.
    path = _with_header(real, tmp_path, "match_id", "x/../../escape")
    argv = ["replay", "ask", str(path), "--at", "3", "--bot", "builtin:random"]
    code, out, err = _run(argv, capsys)
    assert (code, out) == (2, "")
    assert "field 'match_id'" in err and err.count("\n") == 1
    assert cgroups_named("*escape*") == []


def test_a_header_without_a_match_id_still_reads(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_header(real, tmp_path, "match_id", "")
    code, _, err = _run(["replay", "verify", str(path)], capsys)
    assert code == 0, err


@pytest.mark.parametrize("name", ["a/b", "..", "x\0y", "", "-lead", "a\nb", "n" * 129])
def test_cgroup_naming_refuses_unsafe_names(name: str) -> None:
    with pytest.raises(UnsafeName, match="unsafe cgroup name"):
        Cgroup.create(name, BotLimits())
