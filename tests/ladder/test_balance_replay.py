"""A match's balance figures from its replay, on real matches: the round-end scores the
figures use are the game's own rounds and scores, read here from the re-simulated
states without the hooks, and the last round ends on the result's scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.engine import CHANCE
from niwa.ladder import balance
from niwa.ladder.balance_replay import from_file, from_replay
from niwa.referee.replay import ReplayError, read
from niwa.referee.replay.check import states
from tests.web.matches import play


@pytest.mark.parametrize("seats", [2, 3])
def test_a_sakura_match_is_scored_at_the_end_of_each_of_its_rounds(
    tmp_path: Path, seats: int
) -> None:
    path = play("sakura", tmp_path, seed=5, seats=seats)
    replay = read(path)
    assert replay.result is not None
    # the tokens when each numbered round was over (the round counter moved on)
    ends: dict[int, list[float]] = {}
    decisions = 0
    for step, before, after in states(replay):
        decisions += any(m.seat != CHANCE for m in step.moves)
        was = before.observe(None)["round"]
        view = after.observe(None)
        if view["round"] != was and was >= 1:
            ends[was] = [float(t) for t in view["tokens"][:seats]]
    history = [ends[r] for r in sorted(ends)] + [list(replay.result.scores)]
    figures = from_file(path)
    assert figures.rounds == len(history)
    assert figures.steps == decisions
    assert figures.lead_changes == balance.lead_changes(history)
    assert figures.winner_late == balance.winner_decided_late(
        history, [0.0] * seats, replay.result.places
    )
    assert figures.places == tuple(replay.result.places)
    assert figures.scores == tuple(replay.result.scores)


def test_every_game_gives_its_figures(tmp_path: Path) -> None:
    for game in ("blossom", "bonsai", "miyabi", "sakura"):
        figures = from_file(play(game, tmp_path, seed=2))
        assert figures.rounds >= 2, game
        assert figures.steps >= figures.rounds, game
        assert figures.lead_changes is not None and figures.lead_changes < figures.rounds, game


def test_an_unfinished_match_has_no_figures(tmp_path: Path) -> None:
    path = play("sakura", tmp_path, seed=5)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(ReplayError, match="no result line"):
        from_replay(read(cut))
