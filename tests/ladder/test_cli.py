"""``niwa ladder``: the commands that work on a store, and their one-line errors."""

from __future__ import annotations

import json
import sqlite3
from io import StringIO
from pathlib import Path

import pytest
import structlog

from niwa.cli import main
from niwa.ladder import logs


def test_user_add_prints_a_token_that_is_stored_only_as_a_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ladder.db"
    assert main(["ladder", "user", "add", "alice", "--db", str(db)]) == 0
    token = capsys.readouterr().out.split()[-1]
    assert token.startswith("niwa_")
    stored = sqlite3.connect(db).execute("SELECT token_hash FROM owners").fetchone()[0]
    assert token not in stored


def test_adding_the_same_user_twice_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "ladder.db")
    main(["ladder", "user", "add", "alice", "--db", db])
    assert main(["ladder", "user", "add", "alice", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "niwa ladder: error: owner 'alice' exists already: pick another name"


def test_a_store_in_a_missing_folder_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "nowhere" / "ladder.db")
    assert main(["ladder", "leaderboard", "--db", db]) == 2
    assert "no ladder store at" in capsys.readouterr().err


def test_no_server_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "leaderboard", "--server", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no ladder answers at 127.0.0.1:1" in err


def test_submitting_without_a_token_is_refused_before_any_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NIWA_TOKEN", raising=False)
    assert main(["ladder", "submit", "examples/python-bot", "--server", "127.0.0.1:1"]) == 2
    assert "needs your token" in capsys.readouterr().err


def test_the_demo_leaves_its_data_and_a_second_run_adds_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "niwa-data"
    assert main(["ladder", "demo", "--data", str(data), "--matches", "1", "--workers", "1"]) == 0
    first = capsys.readouterr().out
    assert main(["ladder", "demo", "--data", str(data), "--matches", "1", "--workers", "1"]) == 0
    second = capsys.readouterr().out
    done = sqlite3.connect(data / "ladder.db").execute(
        "SELECT COUNT(*) FROM matches WHERE state = 'done'"
    ).fetchone()[0]
    games = first.count(" rated matches")
    assert games >= 1 and done == 2 * games
    assert "(0 matches there already)" in first
    assert f"({games} matches there already)" in second
    assert len(list((data / "replays").glob("*.jsonl"))) == done
    assert main(["replay", "verify", str(data / "replays" / "1.jsonl")]) == 0


def test_logs_are_json_lines_with_the_bound_match_when_not_on_a_terminal() -> None:
    out = StringIO()
    logs.configure("info", stream=out)
    structlog.get_logger("niwa.ladder").bind(match=7, bot="random-1").info("match_recorded")
    entry = json.loads(out.getvalue())
    assert (entry["event"], entry["match"], entry["bot"]) == ("match_recorded", 7, "random-1")


def test_a_bad_manifest_is_refused_before_uploading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\nversion = "1"\n')
    submit = ["ladder", "submit", str(tmp_path), "--server", "127.0.0.1:1", "--token", "t"]
    assert main(submit) == 2
    assert "'games' must list the games it plays" in capsys.readouterr().err


def test_bench_ladder_reports_rate_and_time_outside_the_bots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = ["bench", "ladder", "--matches", "2", "--game", "blossom", "--workers", "1"]
    assert main(bench) == 0
    out = capsys.readouterr().out
    assert "ladder: 2 matches of blossom" in out
    assert "matches per minute" in out and "outside the bots" in out


def test_submit_checks_an_archive_with_the_servers_rules_before_uploading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import tarfile

    manifest = b'name = "alpha\\n"\nversion = "1"\ngames = ["*"]\ncommand = ["x"]\n'
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
    path = tmp_path / "bot.tar.gz"
    path.write_bytes(buffer.getvalue())
    # No server listens on port 9: the refusal comes before any connection.
    code = main(["ladder", "submit", str(path), "--server", "127.0.0.1:9", "--token", "t"])
    assert code == 2
    assert "'name' must be 1-64 ASCII letters" in capsys.readouterr().err



def test_a_ray_address_without_the_ray_executor_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "ladder.db")
    assert main(["ladder", "serve", "--db", db, "--ray-address", "127.0.0.2:6379"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "niwa ladder: error: --ray-address goes with --executor ray"
