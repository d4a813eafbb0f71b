"""``niwa bench strength``: the seatings, the score of a match, the interval and Elo, and
one real run through the referee with sandboxed bot processes."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from niwa.cli import UsageError
from niwa.commands.bench_strength import match_score, run, seatings
from niwa.series.stats import block_interval, elo, t_quantile_975, wilson


def test_two_players_swap_seats() -> None:
    assert seatings(2) == [("a", "b"), ("b", "a")]


def test_four_players_sit_two_of_each_in_every_arrangement() -> None:
    arrangements = seatings(4)
    assert len(arrangements) == 6
    assert all(s.count("a") == 2 for s in arrangements)
    # every seat holds each bot equally often
    assert all(sum(s[i] == "a" for s in arrangements) == 3 for i in range(4))


def test_three_players_give_each_bot_the_odd_seat_out_equally() -> None:
    arrangements = seatings(3)
    assert sum(s.count("a") for s in arrangements) == sum(s.count("b") for s in arrangements)


def test_a_match_scores_the_pairs_a_placed_ahead_of_b_ties_half() -> None:
    assert match_score([0, 1], ("a", "b")) == 1.0
    assert match_score([0, 0], ("a", "b")) == 0.5
    # a: 1st and 4th, b: 2nd and 3rd: a is ahead in two of the four pairs
    assert match_score([0, 1, 2, 3], ("a", "b", "b", "a")) == 0.5
    assert match_score([0, 1, 1, 3], ("a", "b", "a", "b")) == pytest.approx(3.5 / 4)


def test_the_t_quantile_matches_the_tables() -> None:
    assert t_quantile_975(10) == pytest.approx(2.228, abs=0.002)
    assert t_quantile_975(49) == pytest.approx(2.010, abs=0.002)


def test_the_interval_is_the_mean_plus_minus_t_standard_errors_within_0_1() -> None:
    mean, low, high = block_interval([1.0, 0.5, 1.0, 0.5], matches=8)
    half = t_quantile_975(3) * 0.288675 / 2
    assert (mean, low, high) == pytest.approx((0.75, 0.75 - half, min(1.0, 0.75 + half)))


def test_a_clean_sweep_still_gets_the_wilson_interval() -> None:
    mean, low, high = block_interval([1.0] * 50, matches=100)
    assert (mean, high) == (1.0, 1.0)
    assert low == pytest.approx(wilson(1.0, 100)[0]) and low == pytest.approx(0.963, abs=0.001)


def test_elo_of_an_even_score_is_zero_and_of_a_sweep_infinite() -> None:
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo(1.0) == math.inf and elo(0.0) == -math.inf


def options(**changes: object) -> argparse.Namespace:
    args = argparse.Namespace(
        game="sakura", pair=["greedy:random"], players=[2], matches=2, time="1s+10s",
        jobs=2, seed=0, replays=None, no_sandbox=False,
    )
    for key, value in changes.items():
        setattr(args, key, value)
    return args


def test_a_sandboxed_run_prints_the_table_and_no_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(options(replays=tmp_path)) == 0
    out = capsys.readouterr().out
    assert "sakura: time control 1s+10s, sandboxed" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("2 "))
    assert row.split()[1:4] == ["greedy", "random", "2"]
    assert "0/0" in row
    assert len(list(tmp_path.glob("*.jsonl"))) == 2


def test_an_unknown_bot_in_a_pairing_is_refused_with_the_list() -> None:
    with pytest.raises(UsageError, match="no built-in bot 'deep'; built-in bots: greedy"):
        run(options(pair=["deep:random"]))


def test_a_player_count_the_game_does_not_allow_is_refused() -> None:
    with pytest.raises(UsageError, match="sakura is played by 2 to 6 players"):
        run(options(players=[7]))


def test_a_side_of_a_pairing_may_be_a_bot_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "dir-random"\nversion = "1"\ngames = ["*"]\n'
        'command = ["python3", "-m", "niwa.bots.builtin", "random"]\n'
    )
    replays = tmp_path / "replays"
    assert run(options(pair=[f"greedy:{bot}"], replays=replays)) == 0
    capsys.readouterr()
    [first, *_] = sorted(replays.glob("*.jsonl"))
    header = json.loads(first.read_text().splitlines()[0])
    assert {seat["name"] for seat in header["seats"]} == {"greedy", "dir-random"}
