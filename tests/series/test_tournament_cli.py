"""``niwa tournament`` end to end with real sandboxed bot processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import plackett_luce
from niwa.ladder.mle import batch_elo

BOTS = ["--bot", "builtin:greedy", "--bot", "builtin:random", "--bot", "builtin:mcts?seconds=0.01"]
FAST = ["--time", "0.1s+1s", "--concurrency", "2", "--seed", "3"]


def run(tmp_path: Path, *extra: str) -> tuple[list[dict[str, object]], dict[str, object]]:
    out = tmp_path / "t.jsonl"
    assert main(["tournament", "blossom", *BOTS, *FAST, "--json", str(out), *extra]) == 0
    *games, standings = [json.loads(line) for line in out.read_text().splitlines()]
    return games, standings


def test_round_robin_plays_every_pairing_in_both_seatings(tmp_path: Path) -> None:
    games, standings = run(tmp_path, "--format", "round-robin")
    assert len(games) == 6  # 3 pairings x 2 seatings
    met = {frozenset(s["bot"] for s in g["seats"]) for g in games}  # type: ignore[attr-defined]
    assert len(met) == 3
    rows = standings["rows"]
    assert isinstance(rows, list) and [r["rank"] for r in rows] == [1, 2, 3]
    assert all(r["games"] == 4 for r in rows)
    assert sum(r["points"] for r in rows) == 6  # one point per game
    assert all(r["elo_ci95"] > 0 for r in rows)


def test_a_gauntlet_plays_only_the_first_bot_against_the_others(tmp_path: Path) -> None:
    games, _ = run(tmp_path, "--format", "gauntlet")
    assert len(games) == 4
    assert all("builtin:greedy" in [s["bot"] for s in g["seats"]] for g in games)  # type: ignore[attr-defined]


def test_the_text_table_has_rank_points_and_elo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(tmp_path, "--format", "swiss", "--rounds", "2")
    printed = capsys.readouterr().out
    assert "rank  bot" in printed and "Elo ± 95%" in printed
    assert "sits out" in printed  # three bots: one sits out each swiss round


def test_fewer_bots_than_seats_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "blossom", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--players", "3"]
    assert main(argv) == 2
    assert "needs at least 3 --bot, not 2" in capsys.readouterr().err


def test_the_table_is_the_ladders_plackett_luce_fit_of_its_games(tmp_path: Path) -> None:
    games, standings = run(tmp_path, "--players", "3", "--rounds", "2")
    orders = [[(s["bot"], seat, s["place"]) for seat, s in enumerate(g["seats"])]  # type: ignore[attr-defined]
              for g in games]
    fitted = plackett_luce.fit(orders)
    rows = standings["rows"]
    assert isinstance(rows, list) and len(rows) == 3
    for row in rows:
        assert (row["elo"], row["elo_ci95"]) == (
            pytest.approx(fitted.ratings[row["bot"]].elo, abs=1e-9),
            pytest.approx(fitted.ratings[row["bot"]].ci95, abs=1e-9),
        )
    assert standings["rating"] == "plackett-luce"
    assert [(e["players"], e["seat"]) for e in standings["seat_effects"]] == [(3, 1), (3, 2)]  # type: ignore[attr-defined]
    assert standings["seat_effects"][0]["elo"] == pytest.approx(fitted.seats[3, 1].elo)  # type: ignore[index]


def test_rating_pairwise_keeps_the_bradley_terry_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games, standings = run(tmp_path, "--rating", "pairwise")
    placings = [[(s["bot"], s["place"]) for s in g["seats"]] for g in games]  # type: ignore[attr-defined]
    fitted = batch_elo(placings)
    rows = standings["rows"]
    assert isinstance(rows, list)
    assert {r["bot"]: r["elo"] for r in rows} == {
        bot: pytest.approx(e.elo, abs=1e-9) for bot, e in fitted.items()
    }
    assert standings["seat_effects"] == []
    assert "seat effect" not in capsys.readouterr().out


def test_the_text_table_prints_the_seat_effects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(tmp_path, "--players", "3")
    printed = capsys.readouterr().out
    assert "seat effect at 3 seats (Elo against seat 0, ± 95%): seat 1 " in printed


def test_rating_is_refused_for_a_knockout(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "blossom", *BOTS, "--format", "knockout", "--rating", "pairwise"]
    assert main(argv) == 2
    assert "a knockout's bracket has no Elo column" in capsys.readouterr().err
