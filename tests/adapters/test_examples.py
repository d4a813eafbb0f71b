"""The RL examples run: the OpenSpiel bot answers a legal move, the trainer learns a step."""

from __future__ import annotations

import json
import random
import re
import runpy
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install niwa[rl])")

from niwa import engine
from niwa.bots.sdk import GameStart, Turn
from niwa.cli import main
from niwa.referee import replay

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


def assert_plays_sandboxed_with_every_move_ok(game: str, bot: Path, tmp_path: Path) -> None:
    """``niwa play`` of ``bot`` in seat 0 against builtin:random, in the sandbox: both
    seats finish "ok" and every one of the bot's moves is OK."""
    argv = ["play", game, "--bot", str(bot), "--bot", "builtin:random", "--seed", "5",
            "--time", "10s+60s", "--replay", str(tmp_path / "match.jsonl"), "--quiet"]
    assert main(argv) == 0
    played = replay.read(tmp_path / "match.jsonl")
    assert played.header.sandbox
    assert played.result is not None and {s.status for s in played.result.seats} == {"ok"}
    moves = [m for s in played.steps for m in s.moves if m.seat == 0]
    assert moves and {m.status for m in moves} == {"OK"}


def train(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    script = EXAMPLES / "rl-training" / "train.py"
    argv = [str(script), "--game", "sakura", "--iterations", "2", "--games", "4", *args]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(script), run_name="__main__")
    return capsys.readouterr().out


def test_the_trainer_runs_an_iteration_and_prints_its_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = train(monkeypatch, capsys, "--eval-games", "2")
    assert len([line for line in out.splitlines() if line.startswith("| 2 |")]) == 1


def test_the_trainer_ends_with_the_untrained_and_trained_win_rates(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    last = train(monkeypatch, capsys, "--eval-games", "4").splitlines()[-1]
    assert last.startswith("win rate over 4 evaluation games") and "untrained" in last


def test_the_trainer_plays_the_same_run_again_from_the_same_seed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def without_cpu(out: str) -> list[str]:  # the CPU column is the one thing that may differ
        lines = out.splitlines()
        return [line.rsplit("|", 2)[0] if line.startswith("| ") else line for line in lines]

    runs = [train(monkeypatch, capsys, "--seed", "11", "--eval-games", "4") for _ in range(2)]
    assert without_cpu(runs[0]) == without_cpu(runs[1])
    assert "seed 11" in runs[0]


def test_the_trainer_saves_weights_with_the_encoder_and_action_space_they_fit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import numpy as np

    from niwa.adapters import features

    path = tmp_path / "policy.npz"
    train(monkeypatch, capsys, "--seed", "5", "--eval-games", "0", "--save", str(path))
    saved = np.load(path)
    meta = json.loads(str(saved["meta"]))
    assert (meta["game"], meta["seed"]) == ("sakura", 5)
    assert (meta["encoder"], meta["encoder_version"]) == (
        features.ENCODER_NAME, features.ENCODER_VERSION
    )
    assert saved["w"].shape == (meta["actions"], meta["features"])
    assert len(meta["action_values"]) == meta["actions"]
    assert "--save" in meta["command"]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap")
def test_the_openspiel_bot_plays_a_whole_sandboxed_match_with_every_move_ok(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "openspiel-bot"  # a copy the sandbox's own uid may enter
    shutil.copytree(EXAMPLES / "openspiel-bot", bot)
    for path in (tmp_path, bot):
        path.chmod(0o755)
    assert_plays_sandboxed_with_every_move_ok("miyabi", bot, tmp_path)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap")
def test_a_saved_policy_becomes_a_bot_that_plays_a_sandboxed_match_with_every_move_ok(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.npz"
    train(monkeypatch, capsys, "--eval-games", "0", "--save", str(policy))
    bot = tmp_path / "bot"
    assert main(["bot", "from-policy", str(policy), "-o", str(bot)]) == 0
    for path in (tmp_path, *bot.rglob("*"), bot):
        path.chmod(0o755)
    assert_plays_sandboxed_with_every_move_ok("sakura", bot, tmp_path)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], pattern: str) -> None:
    """The command exits 1 with one error line matching ``pattern`` (no traceback)."""
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert re.search(pattern, err) and "Traceback" not in err, err


def test_a_policy_from_another_encoder_version_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from niwa.adapters import features

    policy = tmp_path / "policy.npz"
    train(monkeypatch, capsys, "--eval-games", "0", "--save", str(policy))
    monkeypatch.setattr(features, "ENCODER_VERSION", features.ENCODER_VERSION + 1)
    refused(
        ["bot", "from-policy", str(policy), "-o", str(tmp_path / "bot")],
        capsys, r"encoder niwa\.hashed version 1.*train it again",
    )
    assert not (tmp_path / "bot").exists()


def made_bot(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> Path:  # fmt: skip
    policy = tmp_path / "policy.npz"
    train(monkeypatch, capsys, "--eval-games", "0", "--save", str(policy))
    bot = tmp_path / "bot"
    assert main(["bot", "from-policy", str(policy), "-o", str(bot)]) == 0
    return bot


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap")
def test_a_bot_made_from_a_policy_passes_a_ladders_validation_match_and_becomes_active(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from niwa.ladder import archive, runner, submission, worker
    from niwa.ladder.store import ACTIVE, VALIDATION, Store

    bot = made_bot(monkeypatch, capsys, tmp_path)
    store = Store.open(str(tmp_path / "ladder.db"))
    try:
        owner, _ = store.owners.add_owner("alice")
        (submitted,) = submission.submit(
            store, owner, archive.pack_directory(bot), games_played=["sakura"]
        )
        match = store.matches.claim_next()
        assert match is not None and match.kind == VALIDATION
        job = runner.Runner(runner.Settings(db_url="unused"))._job(store, match)
        finished = worker.run_job(job)  # the real sandbox and gRPC, as the ladder runs it
        assert {r.status for r in finished.results} == {"ok"}
        submission.judge(store, match.seats, [(r.status, r.reason) for r in finished.results])
        assert store.bots.bot(submitted.id).status == ACTIVE
    finally:
        store.close()
    seats = replay.read(job.replay_path).header.seats
    assert [s.isolation for s in seats] == ["sandbox"] * len(seats)


def test_a_file_that_is_no_saved_policy_is_refused_with_the_command_that_makes_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "policy.npz").write_bytes(b"not numpy")
    refused(
        ["bot", "from-policy", str(tmp_path / "policy.npz"), "-o", str(tmp_path / "b")],
        capsys, r"is not a saved policy.*train\.py --save",
    )


def test_a_policy_trained_on_another_action_space_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import numpy as np

    policy = tmp_path / "policy.npz"
    train(monkeypatch, capsys, "--eval-games", "0", "--save", str(policy))
    with np.load(policy) as saved:
        meta = json.loads(str(saved["meta"]))
        w, b = saved["w"][:-1], saved["b"][:-1]
    meta["actions"] -= 1
    np.savez(policy, w=w, b=b, meta=np.array(json.dumps(meta)))
    refused(
        ["bot", "from-policy", str(policy), "-o", str(tmp_path / "bot")],
        capsys, r"trained on \d+ actions of sakura.*train it again",
    )


def test_a_bot_folder_that_is_not_empty_is_not_written_over(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bot = made_bot(monkeypatch, capsys, tmp_path)
    policy = tmp_path / "policy.npz"
    refused(
        ["bot", "from-policy", str(policy), "-o", str(bot)],
        capsys, "is not empty: name a new folder with -o",
    )
