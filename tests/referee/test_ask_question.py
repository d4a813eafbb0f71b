"""``niwa replay ask`` rebuilds, from the replay alone, the very question the match sent."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from niwa.bots import builtin
from niwa.bots.sdk import GameStart, Turn
from niwa.referee import replay
from niwa.referee.ask import question_at
from niwa.referee.match import game_start
from tests.referee.conftest import RunToy
from tests.referee.toy import GAME


class Recorder:
    """A bot that keeps what the referee sent it (in process: the objects themselves)."""

    version = "0"
    starts: ClassVar[list[GameStart]] = []
    turns: ClassVar[list[Turn]] = []

    def start(self, game: GameStart) -> None:
        Recorder.starts.append(game)

    def act(self, turn: Turn) -> int:
        Recorder.turns.append(turn)
        return len(turn.legal_actions) - 1


@pytest.fixture(autouse=True)
def _recorder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(builtin.BUILTIN, "recorder", f"{__name__}:Recorder")
    monkeypatch.setattr(Recorder, "starts", [])
    monkeypatch.setattr(Recorder, "turns", [])


def test_ask_sends_the_start_the_match_sent(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:recorder", "builtin:recorder", seed=7, match_id="m7")
    header = replay.read(tmp_path / "toy.jsonl").header
    sent = sorted(Recorder.starts, key=lambda s: s.seat)
    assert [s.seat for s in sent] == [0, 1]
    assert [game_start(header, seat) for seat in (0, 1)] == sent


def test_ask_sends_the_act_question_the_match_sent_at_every_step(
    run_toy: RunToy, tmp_path: Path
) -> None:
    run_toy("builtin:recorder", "builtin:recorder", seed=3)
    r = replay.read(tmp_path / "toy.jsonl")
    assert Recorder.turns, "the match asked no question"
    for sent in Recorder.turns:
        rebuilt, recorded = question_at(r, sent.decision, sent.seat, GAME)
        assert rebuilt == sent
        assert recorded.action == sent.legal_actions[-1]
