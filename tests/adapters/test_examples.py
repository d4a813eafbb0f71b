"""The RL examples run: the OpenSpiel bot answers a legal move, the trainer learns a step."""

from __future__ import annotations

import random
import runpy
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install niwa[rl])")

import engine
from bots.sdk import GameStart, Turn
from niwa.cli import main
from referee import replay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def first_turn(game: str, seed: int) -> Turn:
    state = engine.load(game).new_game(2)
    rng = random.Random(seed)
    while state.to_move() == (engine.CHANCE,):
        state.apply({engine.CHANCE: engine.sample_chance(state, rng)})
    seat = state.to_move()[0]
    return Turn(
        decision=0,
        seat=seat,
        observation=state.observe(seat),
        legal_actions=state.legal_actions(seat),
        time_left_ms=1000,
        seed=seed,
    )


@pytest.mark.parametrize("game", ["blossom", "miyabi", "bonsai"])
def test_the_openspiel_bot_answers_a_legal_move_and_the_same_one_again(game: str) -> None:
    bot_module = runpy.run_path(str(EXAMPLES / "openspiel-bot" / "bot.py"))
    bot = bot_module["OpenSpielMcts"]()
    bot.start(GameStart(game, "", 0, 2, {}, 1000, 30000, 7))
    turn = first_turn(game, 3)
    reply = bot.act(turn)
    assert 0 <= reply.index < len(turn.legal_actions)
    assert bot.act(turn).index == reply.index


def test_the_trainer_runs_an_iteration_and_prints_its_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = EXAMPLES / "rl-training" / "train.py"
    argv = [str(script), "--game", "sakura", "--iterations", "2", "--games", "4"]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(script), run_name="__main__")
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2 |")]
    assert len(rows) == 1


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap")
def test_the_openspiel_bot_plays_a_whole_sandboxed_match_with_every_move_ok(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "openspiel-bot"  # a copy the sandbox's own uid may enter
    shutil.copytree(EXAMPLES / "openspiel-bot", bot)
    for path in (tmp_path, bot):
        path.chmod(0o755)
    argv = ["play", "miyabi", "--bot", str(bot), "--bot", "builtin:random", "--seed", "5",
            "--time", "10s+60s", "--replay", str(tmp_path / "match.jsonl"), "--quiet"]
    assert main(argv) == 0
    played = replay.read(tmp_path / "match.jsonl")
    assert played.header.sandbox
    assert played.result is not None and {s.status for s in played.result.seats} == {"ok"}
    moves = [m for s in played.steps for m in s.moves if m.seat == 0]
    assert moves and {m.status for m in moves} == {"OK"}
