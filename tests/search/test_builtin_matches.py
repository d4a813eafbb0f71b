"""Every built-in bot finishes a two-seat match of every game, run by the referee."""

from __future__ import annotations

import pytest

from niwa import engine
from niwa.referee.match import BotSpec, MatchSpec, TimeControl, play_match

#: mcts with a fixed, small effort keeps the test quick and reproducible.
BOTS = ["random", "greedy", "mcts?iterations=8"]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("name", engine.games())
def test_a_two_seat_match_of_a_builtin_bot_finishes_in_process(name: str, bot: str) -> None:
    spec = MatchSpec(
        game=name,
        bots=[BotSpec("builtin", bot), BotSpec("builtin", "random")],
        seed=4,
        time_control=TimeControl(60_000, 60_000),
        sandbox=False,
        in_process=True,
    )
    outcome = play_match(spec)
    assert [s.status for s in outcome.seats] == ["ok", "ok"]
    assert sorted(outcome.result.places) in ([0, 1], [0, 0])
    assert outcome.decisions > 0
