"""``niwa replay verify|show|ask`` on a blossom match of built-in bots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.engine import canonical_json, describe_move
from niwa.referee import replay
from tests.referee.sandboxing import hostile_bot


@pytest.fixture(scope="module")
def blossom_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "m.jsonl"
    argv = ["play", "blossom", *["--bot", "builtin:random"] * 3, "--seed", "9",
            "--in-process", "--quiet", "--replay", str(path)]
    assert main(argv) == 0
    return path


def tampered(src: Path, dst: Path, index: int) -> Path:
    lines = src.read_text().splitlines()
    d = json.loads(lines[index + 1])
    d["hash"] = "f" * 16
    lines[index + 1] = json.dumps(d)
    dst.write_text("\n".join(lines) + "\n")
    return dst


def test_verify_accepts_an_untouched_replay(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "verify", str(blossom_replay)]) == 0
    assert ": ok: " in capsys.readouterr().out


def test_verify_names_the_first_step_whose_hash_differs(
    blossom_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tampered(blossom_replay, tmp_path / "bad.jsonl", 30)
    assert main(["replay", "verify", str(bad)]) == 1
    assert "FAILED: step 30: state hash" in capsys.readouterr().out


def test_verify_of_a_missing_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "verify", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read replay" in capsys.readouterr().err


def test_show_narrates_every_step_and_the_result(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "show", str(blossom_replay)]) == 0
    out = capsys.readouterr().out
    steps = len(replay.read(blossom_replay).steps)
    assert f"\n{steps - 1:>4}  " in out
    assert "as seen by the spectator" in out and "  1. seat " in out


def test_show_as_a_seat_shows_that_seats_hand(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["replay", "show", str(blossom_replay), "--seat", "1"])
    seat_view = capsys.readouterr().out
    main(["replay", "show", str(blossom_replay)])
    public_view = capsys.readouterr().out
    assert "as seen by seat 1" in seat_view
    assert "(you)" in seat_view and "(you)" not in public_view


def test_show_at_a_step_lists_the_legal_actions_and_marks_the_choice(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = replay.read(blossom_replay)
    step = next(s for s in r.steps if s.kind == "decision")
    seat = step.moves[0].seat
    assert main(["replay", "show", str(blossom_replay), "--at", str(step.index),
                 "--seat", str(seat)]) == 0
    out = capsys.readouterr().out
    assert f"seat {seat} chose among " in out
    assert sum(1 for ln in out.splitlines() if ln.startswith("  -> ")) == 1


def test_ask_at_a_chance_step_is_refused(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["replay", "ask", str(blossom_replay), "--at", "0", "--bot", "builtin:random"]
    assert main(argv) == 2
    assert "is a chance outcome, not a decision" in capsys.readouterr().err


def test_ask_past_the_end_is_refused(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["replay", "ask", str(blossom_replay), "--at", "100000", "--bot", "builtin:random"]
    assert main(argv) == 2
    assert "no step 100000" in capsys.readouterr().err


def first_step_not_answered_0(path: Path) -> tuple[int, int]:
    """A decision step (and its seat) whose recorded answer is not the first legal
    action: a bot that always answers 0 answers it differently."""
    for step, before, _ in replay.states(replay.read(path)):
        for m in step.moves:
            if step.kind == "decision" and before.legal_actions(m.seat)[0] != m.action:
                return step.index, m.seat
    raise AssertionError("every recorded answer was the first legal action")


def test_ask_with_the_same_bot_gives_the_same_answer_and_exits_0(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at, _ = first_step_not_answered_0(blossom_replay)
    argv = ["replay", "ask", str(blossom_replay), "--at", str(at), "--bot", "builtin:random"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "same answer"


def test_ask_with_a_bot_that_answers_otherwise_exits_1_and_shows_its_debug_text(
    blossom_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.chmod(0o755)
    bot = hostile_bot(tmp_path, "debug", "3")  # answers index 0, with debug text
    at, _ = first_step_not_answered_0(blossom_replay)
    argv = ["replay", "ask", str(blossom_replay), "--at", str(at), "--bot", str(bot)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    now = out.split("\nnow:      ", 1)[1].splitlines()
    assert now[1:4] == [f"        debug| decision {at}", "        debug| \\x1b[31mred",
                        "        debug| ddd"]
    assert now[4] == "different answer"


def test_ask_with_a_bot_that_raises_prints_its_traceback_and_exits_1(
    blossom_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.chmod(0o755)
    bot = hostile_bot(tmp_path, "raise", "1")  # raises ValueError at its first Act
    at, _ = first_step_not_answered_0(blossom_replay)
    argv = ["replay", "ask", str(blossom_replay), "--at", str(at), "--bot", str(bot)]
    assert main(argv) == 1
    now = capsys.readouterr().out.split("\nnow:      ", 1)[1].split("\ndifferent answer")[0]
    first, *traceback = now.splitlines()
    assert first.startswith("CRASHED: Act: your code raised ValueError: bad index ")
    assert traceback[0] == "        | Traceback (most recent call last):"
    assert '        |     raise ValueError(f"bad index {len(turn.legal_actions)}")' in traceback
    assert traceback[-1].startswith("        | ValueError: bad index ")


def test_an_ok_verdict_says_what_the_file_cannot_prove_and_gives_its_sha256(
    blossom_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A note on a good move is not provable from the file: the edited copy verifies too,
    # and only its SHA-256 (against the ladder's) tells it apart.
    lines = blossom_replay.read_text().splitlines()
    step = next(i for i, ln in enumerate(lines) if '"status":"OK"' in ln)
    edited = json.loads(lines[step])
    edited["moves"][0]["note"] = "forged"
    lines[step] = json.dumps(edited, separators=(",", ":"), sort_keys=True)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    shas = []
    for path in (blossom_replay, forged):
        assert main(["replay", "verify", str(path)]) == 0
        _, note = capsys.readouterr().out.splitlines()
        assert "anyone can write a consistent file" in note
        assert "not provable from the file" in note and "niwa ladder replay N" in note
        shas.append(note.rsplit(" ", 1)[1])
    assert shas[0] != shas[1] and all(len(s) == 64 for s in shas)


def test_ask_shows_both_answers_in_words_and_as_json_with_the_flag(
    blossom_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at, seat = first_step_not_answered_0(blossom_replay)
    r = replay.read(blossom_replay)
    before, move = next((b, m) for s, b, _ in replay.states(r) if s.index == at
                        for m in s.moves if m.seat == seat)
    argv = ["replay", "ask", str(blossom_replay), "--at", str(at), "--bot", "builtin:random"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"recorded: {describe_move(before, seat, move.action)}  [OK]"
    assert main([*argv, "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"recorded: {canonical_json(move.action)}  [OK]"
