"""``niwa bench rl``: the vector env's rate next to the one-game loop's, as JSON too."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install niwa[rl])")

from niwa import engine
from niwa.cli import main


def test_bench_rl_writes_both_rates_and_their_ratio_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = engine.games()[0]
    argv = ["bench", "rl", game, "--runs", "1", "--seconds", "0.05", "--batch", "4",
            "--json", "-"]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    [row] = document["rows"]
    assert (document["bench"], row["game"], row["players"]) == ("rl", game, 2)
    assert row["one_game_steps_per_s"] > 0 and row["vector_steps_per_s"] > 0
    assert row["ratio"] == pytest.approx(row["vector_steps_per_s"] / row["one_game_steps_per_s"])
    assert "load average" in captured.err  # the text table moved to stderr


def test_bench_rl_names_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "rl", "chess"]) == 2
    assert "no game 'chess'" in capsys.readouterr().err


def test_bench_rl_refuses_a_player_count_the_game_does_not_allow(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = engine.games()[0]
    assert main(["bench", "rl", game, "--players", "99"]) == 2
    assert "not 99" in capsys.readouterr().err
