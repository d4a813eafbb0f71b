"""The referee's acceptance: a sandboxed match of the two example bots and a built-in bot,
whose replay verifies and whose recorded answers a deterministic bot gives again."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import replay

ROOT = Path(__file__).parents[2]
PYTHON_BOT = str(ROOT / "examples" / "python-bot")
JS_BOT = str(ROOT / "examples" / "js-bot")


@pytest.fixture(scope="module")
def match_replay(tmp_path_factory: pytest.TempPathFactory, js_bot: Path) -> Path:
    path = tmp_path_factory.mktemp("acceptance") / "match.jsonl"
    argv = ["play", "blossom", "--bot", PYTHON_BOT, "--bot", "builtin:random",
            "--bot", JS_BOT, "--seed", "4", "--replay", str(path), "--quiet"]
    assert main(argv) == 0
    return path


def first_step_of(path: Path, seat: int) -> int:
    return next(s.index for s in replay.read(path).steps if s.moves[0].seat == seat)


def test_the_sandboxed_match_completes_with_every_seat_in(match_replay: Path) -> None:
    r = replay.read(match_replay)
    assert r.header.sandbox and [s.name for s in r.header.seats] == [
        "python-example", "random", "js-example"
    ]
    assert r.result is not None and {s.status for s in r.result.seats} == {"ok"}
    assert {m.status for s in r.steps for m in s.moves if m.seat >= 0} == {"OK"}


def test_its_replay_verifies(match_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "verify", str(match_replay)]) == 0
    assert "every hash and the result match" in capsys.readouterr().out


@pytest.mark.parametrize(("seat", "bot"), [(0, PYTHON_BOT), (1, "builtin:random"), (2, JS_BOT)])
def test_ask_reproduces_a_recorded_answer_of_a_deterministic_bot(
    match_replay: Path, seat: int, bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    at = first_step_of(match_replay, seat)
    assert main(["replay", "ask", str(match_replay), "--at", str(at), "--bot", bot]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("same answer")
    recorded = next(ln for ln in out.splitlines() if ln.startswith("recorded:"))
    now = next(ln for ln in out.splitlines() if ln.startswith("now:"))
    assert recorded.split()[1] == now.split()[1]


def test_the_js_bots_thinking_is_kept_in_each_of_its_moves(match_replay: Path) -> None:
    moves = [m for s in replay.read(match_replay).steps for m in s.moves if m.seat == 2]
    assert moves and all(m.thinking is not None and m.thinking.pv == [m.action] for m in moves)
    assert all(sum(m.thinking.shares) == pytest.approx(1, abs=1e-3) for m in moves if m.thinking)
