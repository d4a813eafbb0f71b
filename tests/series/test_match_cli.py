"""``niwa match`` end to end: real sandboxed bot processes in worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import plackett_luce
from tests.referee.sandboxing import bot_crashing_at_import

FAST = ["--time", "0.1s+1s", "--concurrency", "2"]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_clearly_stronger_bot_is_accepted_as_stronger_before_the_games_run_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "series.jsonl"
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--games", "60", "--seed", "1", "--sprt", "elo0=0", "elo1=200", "--json", str(out),
            *FAST]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "SPRT verdict: H1 (stopped after" in printed
    *games, summary = lines(out)
    assert summary["type"] == "summary" and len(games) == summary["games"] < 60
    duel = summary["head_to_head"]
    assert isinstance(duel, dict)
    assert duel["model"] == "pentanomial" and duel["sprt"]["verdict"] == "H1"
    assert duel["sprt"]["llr"] >= duel["sprt"]["upper"]
    bots = summary["bots"]
    assert isinstance(bots, dict)
    assert bots["builtin:greedy"]["wins"] > bots["builtin:random"]["wins"]


def test_pairs_play_each_seed_in_both_seatings_and_write_replays(tmp_path: Path) -> None:
    out = tmp_path / "series.jsonl"
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--games", "3", "--seed", "4", "--replays", str(tmp_path / "r"), "--json", str(out),
            *FAST]
    assert main(argv) == 0
    *games, summary = lines(out)
    assert summary["planned"] == 4  # rounded up to whole pairs
    by_seed: dict[object, list[list[object]]] = {}
    for g in games:
        seats = g["seats"]
        assert isinstance(seats, list)
        by_seed.setdefault(g["seed"], []).append([s["bot"] for s in seats])
    assert sorted(map(sorted, by_seed.values())) == [
        [["builtin:greedy", "builtin:random"], ["builtin:random", "builtin:greedy"]]] * 2
    assert len(list((tmp_path / "r").glob("*.jsonl"))) == 4


def test_three_players_fill_the_third_seat_from_the_field(tmp_path: Path) -> None:
    out = tmp_path / "series.jsonl"
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--players", "3", "--field", "builtin:random", "--games", "3", "--seed", "2",
            "--json", str(out), *FAST]
    assert main(argv) == 0
    *games, summary = lines(out)
    assert len(games) == 3
    for g in games:
        seats = g["seats"]
        assert isinstance(seats, list)
        assert sorted(s["bot"] for s in seats) == [
            "builtin:greedy", "builtin:random", "builtin:random (field)"]
    duel = summary["head_to_head"]
    assert isinstance(duel, dict) and duel["model"] == "trinomial"


def test_a_bot_directory_that_goes_out_makes_exit_code_1_and_shows_its_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = bot_crashing_at_import(tmp_path)
    argv = ["match", "blossom", "--bot", str(bot), "--bot", "builtin:random", "--games", "2",
            "--seed", "1", *FAST]
    assert main(argv) == 1
    printed = capsys.readouterr().out
    assert printed.count("OUT in game") == 1  # the first time only
    assert "CRASHED at start-up" in printed
    assert "       | ModuleNotFoundError: No module named 'numpyy'" in printed
    *_, row = (line for line in printed.splitlines() if line.startswith("crashy@1 "))
    assert row.split()[1:3] == ["2", "0"]  # in the table: 2 games, no wins
    assert "  crashy@1: CRASHED x2, first in game " in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot", "builtin:deep"], "no built-in bot 'deep'"),
        (["--sprt", "elo0=5", "elo1=1"], "elo1 must be above elo0"),
        (["--players", "1"], "2 bots need --players 2 at least"),
        (["--games", "0"], "--games must be at least 1"),
        (["--exit-verdict"], "--exit-verdict needs --sprt"),
        (["--players", "9"], "blossom is played by 2 to 4 players, not 9: change --players"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("niwa match: error: ") and message in err and err.count("\n") == 1


def test_exit_verdict_gives_h0_its_own_exit_status() -> None:
    argv = ["match", "blossom", "--bot", "builtin:random", "--bot", "builtin:greedy",
            "--games", "60", "--seed", "1", "--sprt", "elo0=0", "elo1=200",
            "--exit-verdict", *FAST]
    assert main(argv) == 3


def test_exit_verdict_gives_an_inconclusive_sprt_its_own_exit_status() -> None:
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--games", "2", "--seed", "1", "--sprt", "elo0=0", "elo1=200",
            "--exit-verdict", *FAST]
    assert main(argv) == 4


def test_exit_verdict_keeps_exit_zero_for_h1() -> None:
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--games", "60", "--seed", "1", "--sprt", "elo0=0", "elo1=200",
            "--exit-verdict", *FAST]
    assert main(argv) == 0


def test_the_summary_rates_the_bots_with_the_ladders_plackett_luce_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "series.jsonl"
    argv = ["match", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--players", "3", "--field", "builtin:random", "--games", "6", "--seed", "2",
            "--json", str(out), *FAST]
    assert main(argv) == 0
    *games, summary = lines(out)
    orders = [[(s["bot"], seat, s["place"]) for seat, s in enumerate(g["seats"])]  # type: ignore[arg-type]
              for g in games]
    fitted = plackett_luce.fit(orders)
    assert summary["ratings"] == {
        bot: {"elo": pytest.approx(e.elo), "ci95": pytest.approx(e.ci95)}
        for bot, e in fitted.ratings.items()
    }
    assert [(s["players"], s["seat"]) for s in summary["seat_effects"]] == [(3, 1), (3, 2)]  # type: ignore[attr-defined]
    assert "Plackett-Luce Elo ± 95% (the ladder's fit): " in capsys.readouterr().out
