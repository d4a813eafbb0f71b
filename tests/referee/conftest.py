from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from niwa.referee.clock import TimeControl
from niwa.referee.match import BotSpec, MatchOutcome, MatchSpec, play_match
from tests.referee.toy import GAME

RunToy = Callable[..., MatchOutcome]


@pytest.fixture
def run_toy(tmp_path: Path) -> RunToy:
    """Play the toy game in process with the given built-in bots (or Player factories)."""

    def run(*bots: str, seed: int = 1, replay: str | None = "toy.jsonl", **kw: Any) -> MatchOutcome:
        spec = MatchSpec(
            game=GAME,
            bots=[BotSpec.parse(b) for b in bots],
            seed=seed,
            time_control=kw.pop("time_control", TimeControl.parse("1s+5s")),
            in_process=True,
            replay_path=tmp_path / replay if replay else None,
            **kw,
        )
        return play_match(spec)

    return run
