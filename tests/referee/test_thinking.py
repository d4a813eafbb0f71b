"""A bot's thinking (``ActReply.thinking``), with a real sandboxed bot: kept in its
moves, dropped whole when malformed with one line in the move's debug text (the seat
plays on), cut from the public replay, checked by ``replay verify``, shown by
``replay show``."""

from __future__ import annotations

import contextlib
import io
import json
import math
import shutil
from pathlib import Path

import pytest

from niwa.bots.sdk import PV_LIMIT, Thinking
from niwa.cli import main
from niwa.proto.v1 import bot_pb2
from niwa.referee import replay
from niwa.referee.private import public_replay
from niwa.referee.replay import Move, MoveThinking, Replay
from niwa.referee.replay import check as replay_check
from niwa.referee.thinking import Unreadable, record
from niwa.referee.transport import thinking_from_proto
from tests.referee.sandboxing import hostile_bot

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def seat0(r: Replay) -> list[Move]:
    return [m for s in r.steps for m in s.moves if m.seat == 0]


def played(tmp_path: Path, kind: str) -> tuple[Path, Replay]:
    """A blossom match (``niwa play``) whose seat 0 is a sandboxed bot sending thinking
    of ``kind``, against builtin:random: the replay's path and the replay."""
    tmp_path.chmod(0o755)
    path = tmp_path / "m.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["play", "blossom", "--bot", str(hostile_bot(tmp_path, "thinking", kind)),
                     "--bot", "builtin:random", "--seed", "3", "--replay", str(path)])
    r = replay.read(path)
    assert code == 0 and r.result is not None and r.result.seats[0].status == "ok"
    return path, r


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Replay]:
    return played(tmp_path_factory.mktemp("thinking"), "good")


@needs_bwrap
def test_a_bots_thinking_is_kept_in_each_of_its_moves(good: tuple[Path, Replay]) -> None:
    r = good[1]
    moves = seat0(r)
    assert moves and {m.status for m in moves} == {"OK"}
    states = {s.index: before for s, before, _ in replay.states(r)}
    for step in r.steps:
        for m in step.moves:
            if m.seat != 0:
                assert m.thinking is None
                continue
            legal = states[step.index].legal_actions(0)
            assert m.thinking is not None
            assert len(m.thinking.shares) == len(legal)
            assert m.thinking.values == [0.5, 0.5]
            assert m.thinking.pv == [legal[0]]


@needs_bwrap
def test_a_replay_with_thinking_verifies(good: tuple[Path, Replay]) -> None:
    assert replay_check.verify(good[1]) == len(good[1].steps)


@needs_bwrap
@pytest.mark.parametrize(
    ("kind", "problem"),
    [("share-too-many", "numbers for"), ("nan-value", "values[0] is nan")],
)
def test_malformed_thinking_is_dropped_with_a_debug_line_and_the_seat_plays_on(
    tmp_path: Path, kind: str, problem: str
) -> None:
    _, r = played(tmp_path, kind)
    moves = seat0(r)
    assert moves and {m.status for m in moves} == {"OK"}
    assert all(m.thinking is None for m in moves)
    assert all(m.debug.startswith("[thinking dropped: ") and problem in m.debug for m in moves)


@needs_bwrap
def test_a_principal_variation_past_the_limit_is_cut(tmp_path: Path) -> None:
    _, r = played(tmp_path, "long-pv")
    assert {len(m.thinking.pv) for m in seat0(r) if m.thinking is not None} == {PV_LIMIT}


@needs_bwrap
def test_the_public_replay_has_no_thinking_but_its_owner_keeps_it(
    good: tuple[Path, Replay],
) -> None:
    content = good[0].read_bytes()
    assert b'"thinking":' not in public_replay(content)
    kept = replay.parse(public_replay(content, keep={0}), "kept")
    assert all(m.thinking is not None for m in seat0(kept))


@needs_bwrap
def test_the_public_replay_without_thinking_still_verifies(good: tuple[Path, Replay]) -> None:
    cut = replay.parse(public_replay(good[0].read_bytes()), "cut")
    assert replay_check.verify(cut) == len(cut.steps)


@needs_bwrap
def test_verify_names_a_recorded_thinking_with_a_share_missing(
    good: tuple[Path, Replay], tmp_path: Path
) -> None:
    lines = []
    for raw in good[0].read_text().splitlines():
        line = json.loads(raw)
        for move in line.get("moves", ()):
            if "thinking" in move:
                move["thinking"]["shares"].append(0.0)
        lines.append(replay.encode(line))
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(replay_check.ReplayMismatch, match="thinking: expected 0 or"):
        replay_check.verify(replay.read(broken))


@needs_bwrap
def test_replay_show_at_a_step_lists_each_actions_share(good: tuple[Path, Replay]) -> None:
    path, r = good
    step = next(s.index for s in r.steps for m in s.moves if m.thinking is not None)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", "show", str(path), "--at", str(step)]) == 0
    assert "->   0   " in out.getvalue() and "%" in out.getvalue()
    assert "thinking| values 0.500 0.500; pv " in out.getvalue()


def test_a_well_formed_thinking_is_kept_rounded() -> None:
    kept = record(Thinking([1 / 3, 2 / 3], [0.123456], ["a"]), legal=2, players=1)
    assert kept == MoveThinking(shares=[0.3333, 0.6667], values=[0.1235], pv=["a"])


def test_a_thinking_that_says_nothing_is_not_kept() -> None:
    assert record(Thinking(), legal=3, players=2) is None


@pytest.mark.parametrize(
    ("thinking", "problem"),
    [
        (Thinking(shares=[0.5, 0.5]), "shares has 2 numbers for 3 legal actions"),
        (Thinking(shares=[0.5, 0.5, 0.5]), "shares add up to 1.5, above 1"),
        (Thinking(shares=[0.0, -0.1, 0.0]), "shares[1] is -0.1, not a number in [0, 1]"),
        (Thinking(values=[math.inf, 0.0]), "values[0] is inf, not a number in [0, 1]"),
        (Thinking(values=[0.5]), "values has 1 numbers for 2 seats"),
        (Thinking(pv=[object()]), "pv[0] is not a JSON value (TypeError)"),
    ],
)
def test_a_malformed_thinking_is_refused_with_its_reason(
    thinking: Thinking, problem: str
) -> None:
    assert record(thinking, legal=3, players=2) == problem


def test_a_principal_variation_that_is_not_json_on_the_wire_is_unreadable() -> None:
    got = thinking_from_proto(bot_pb2.Thinking(shares=[1.0], pv_json=['{"a":1}', "{nope"]))
    assert isinstance(got, Unreadable) and got.problem.startswith("pv[1]: ")
    assert isinstance(record(got, legal=1, players=2), str)


def test_play_with_debug_prints_mcts_thinking_under_its_moves() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["play", "blossom", "--in-process", "--seed", "2", "--debug",
                     "--bot", "builtin:mcts?iterations=30", "--bot", "builtin:random"]) == 0
    lines = out.getvalue().splitlines()
    shown = [i for i, line in enumerate(lines) if line.startswith("     thinking| values ")]
    assert shown and all("(builtin:mcts?iterations=30)" in lines[i - 1] for i in shown)
