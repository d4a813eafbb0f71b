"""``niwa bench ladder``: any built-in bot with the worker time split, and the store
timed at scale on synthetic matches, against an older checkout too."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.commands.bench_ladder import HERE
from niwa.commands.ladder_synthetic import QUEUED, SCHEMA, fill
from niwa.ladder.db import Database
from niwa.ladder.store import DONE, Store
from tests.postgres import Server


def test_bench_ladder_plays_the_bot_given_and_splits_worker_time(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    argv = ["bench", "ladder", "--matches", "1", "--game", "blossom", "--workers", "1",
            "--bot", "builtin:greedy", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["bots"] == ["builtin:greedy"] and doc["matches"] == 1
    split = (doc["worker_time_in_bots"], doc["worker_time_in_referee_and_engine"],
             doc["worker_time_idle"])
    assert all(0 <= share <= 1 for share in split)
    assert sum(split) == pytest.approx(1.0)
    assert doc["store_ms_per_match"] > 0


def test_bench_ladder_refuses_a_bot_that_is_not_built_in(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "ladder", "--matches", "1", "--bot", "./mybot"]) == 2
    assert "give a built-in bot" in capsys.readouterr().err


def test_bench_ladder_on_ray_without_ray_names_the_extra_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a)
    )  # as in tox -e bench, which installs niwa without its extras
    assert main(["bench", "ladder", "--executor", "ray"]) == 2
    assert "pip install 'niwa[ray]'" in capsys.readouterr().err


def test_the_synthetic_store_is_schema_3_rows_a_newer_niwa_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    fill(path, "blossom", matches=300, bots=12)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone() == (SCHEMA,)
    store = Store.open(str(path))
    assert store.ratings.rated_count("blossom") == 300
    assert store.matches.counts() == {DONE: 300, "queued": QUEUED}
    assert len(store.bots.ratings("blossom")) == 12
    store.close()


def test_bench_ladder_synthetic_times_each_part_against_a_base(tmp_path: Path) -> None:
    out = tmp_path / "store.json"
    # This checkout stands in for the base: the comparison runs, the ratio is near 1.
    argv = ["bench", "ladder", "--synthetic", "200", "--bots", "10", "--rounds", "2",
            "--repeat", "2", "--base", str(HERE), "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert [run["niwa"] for run in doc["runs"]] == ["this", "base", "base", "this"]
    assert all(run["load_1min"] >= 0 for run in doc["runs"])
    for part in ("schedule", "claim", "commit", "leaderboard_again", "leaderboard_first",
                 "leaderboard_after_commit", "pairwise_leaderboard_first",
                 "pairwise_leaderboard_again", "pairwise_leaderboard_after_commit"):
        assert doc["summary"][part]["ratio"] > 0
        assert doc["summary"][part]["this"]["median_ms"] > 0


def test_bench_ladder_synthetic_reports_cpu_time_and_judges_the_goals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "store.json"
    argv = ["bench", "ladder", "--synthetic", "200", "--bots", "10", "--rounds", "2",
            "--repeat", "1", "--clock", "cpu", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["clock"] == "cpu"
    assert doc["summary"]["leaderboard_after_commit"]["this"]["median_ms"] > 0
    assert "leaderboard_after_commit" in doc["runs"][0]["cpu_s"]
    printed = capsys.readouterr().out
    assert "goal < 50 ms" in printed
    # The Plackett-Luce board after a commit beside the pairwise one, each judged.
    for part in ("leaderboard_after_commit", "pairwise_leaderboard_after_commit"):
        line = next(x for x in printed.splitlines() if x.strip().startswith(part + " "))
        assert "goal < 50 ms" in line


def test_bench_ladder_synthetic_times_a_postgresql_store(
    tmp_path: Path, postgres_server: Server
) -> None:
    out = tmp_path / "store.json"
    url = postgres_server.database()
    argv = ["bench", "ladder", "--synthetic", "200", "--bots", "10", "--rounds", "2",
            "--repeat", "1", "--parts", "claim,commit", "--db", url, "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["engine"] == "postgresql"
    assert doc["summary"]["commit"]["this"]["median_ms"] > 0
    # every database the runs made is dropped again
    names = Database.open(url).execute("SELECT datname FROM pg_database")
    assert not [r for r in names if "_bench" in r["datname"]]


def test_bench_ladder_db_takes_only_a_postgresql_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ladder", "--synthetic", "10", "--db", "ladder.db"]) == 2
    assert "give a postgresql:// URL" in capsys.readouterr().err
