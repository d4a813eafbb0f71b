"""A replay without its bots' private text (:mod:`niwa.referee.private`): the debug text,
the note past its public start and the stderr tail of every seat not kept are cut,
the rest stays byte for byte, and the cut file still verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import replay
from niwa.referee.private import CUT, PUBLIC_NOTE_CHARS, public_note, public_replay
from tests.web.matches import play

LONG_NOTE = "evals " + " ".join(f"{i}:-0.{i:02d}" for i in range(20))
DEBUG = "6:-0.38 14:-0.35 line two"
STDERR = "thinking about move 12"


def with_private_text(path: Path) -> bytes:
    """The played replay with a long note and debug text on every move of both seats,
    and a stderr tail on each seat's result (none of them is chained or hashed)."""
    lines = []
    for raw in path.read_bytes().splitlines():
        line = json.loads(raw)
        if line["kind"] == "decision":
            for move in line["moves"]:
                if move["status"] == "OK":
                    move["note"] = LONG_NOTE
                    move["debug"] = DEBUG
        elif line["kind"] == "result":
            for seat in line["seats"]:
                seat["stderr_tail"] = [STDERR]
        lines.append(replay.encode(line).encode() + b"\n")
    return b"".join(lines)


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return with_private_text(play("blossom", tmp_path_factory.mktemp("private")))


def moves_of(content: bytes, seat: int) -> list[replay.Move]:
    parsed = replay.parse(content, "test")
    return [m for s in parsed.steps for m in s.moves if m.seat == seat and m.status == "OK"]


def test_a_public_note_is_the_first_characters_and_a_cut_mark() -> None:
    assert public_note("value 0.53") == "value 0.53"
    assert public_note(LONG_NOTE) == LONG_NOTE[:PUBLIC_NOTE_CHARS] + CUT


def test_the_public_replay_has_no_debug_text_and_only_the_start_of_notes(
    private: bytes,
) -> None:
    cut = public_replay(private)
    assert DEBUG.encode() not in cut
    notes = {m.note for seat in (0, 1) for m in moves_of(cut, seat)}
    assert notes == {LONG_NOTE[:PUBLIC_NOTE_CHARS] + CUT}


def test_the_public_replay_has_no_stderr_tail(private: bytes) -> None:
    result = replay.parse(public_replay(private), "test").result
    assert result is not None and [s.stderr_tail for s in result.seats] == [[], []]


def test_a_kept_seat_keeps_its_debug_notes_and_stderr(private: bytes) -> None:
    cut = public_replay(private, keep={1})
    assert {m.debug for m in moves_of(cut, 1)} == {DEBUG}
    assert {m.note for m in moves_of(cut, 1)} == {LONG_NOTE}
    assert {m.debug for m in moves_of(cut, 0)} == {""}
    result = replay.parse(cut, "test").result
    assert result is not None and [s.stderr_tail for s in result.seats] == [[], [STDERR]]


def test_a_replay_with_nothing_private_stays_byte_for_byte(tmp_path: Path) -> None:
    played = play("blossom", tmp_path, seed=4).read_bytes()
    assert public_replay(played) == played


def test_the_public_replay_still_verifies(private: bytes, tmp_path: Path) -> None:
    path = tmp_path / "public.jsonl"
    path.write_bytes(public_replay(private))
    assert main(["replay", "verify", str(path)]) == 0
