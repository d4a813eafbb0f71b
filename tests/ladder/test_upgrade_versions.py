"""A store states its schema version, and a niwa older than the store refuses it: every
command that opens it stops naming both versions and the fix; ``niwa ladder migrate
--check`` shows them without changing anything."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import schema
from niwa.ladder.db import Database
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import Store
from tests.ladder.test_upgrade import schema_4_store

NEWER = schema.LATEST + 1
DATA = "--data DIR"  # in a command below: the test's folder


def newer_store(db_url: str, tmp_path: Path) -> str:
    """A store a later niwa migrated (one version past this one's)."""
    Store.open(db_url, tmp_path).close()
    db = Database.open(db_url)
    db.execute("INSERT INTO schema_version (version) VALUES (?)", (NEWER,))
    db.close()
    return db_url


def says_upgrade(err: str) -> bool:
    return f"schema version {NEWER}" in err and str(schema.LATEST) in err and "upgrade niwa" in err


@pytest.mark.parametrize(
    "command",
    [
        ["ladder", "serve", "--listen", "127.0.0.1:0", DATA],
        ["ladder", "web", "--listen", "127.0.0.1:0", DATA],
        ["ladder", "user", "add", "carol", DATA],
        ["ladder", "leaderboard", DATA],
        ["ladder", "migrate"],
        ["ladder", "drain"],
    ],
    ids=lambda c: c[1],
)
def test_a_command_on_a_store_newer_than_this_niwa_stops_naming_both_versions(
    db_url: str, tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = newer_store(db_url, tmp_path)
    data = ["--data", str(tmp_path)]
    argv = [part for word in command for part in (data if word == DATA else [word])]
    assert main([*argv, "--db", url]) == 2
    err = capsys.readouterr().err
    assert says_upgrade(err) and err.count("\n") == 1


def test_a_runner_reconnecting_to_a_store_a_newer_niwa_took_over_stops(
    db_url: str, tmp_path: Path
) -> None:
    runner = Runner(Settings(db_url=newer_store(db_url, tmp_path), data_dir=tmp_path))
    with pytest.raises(schema.SchemaTooNew, match=f"schema version {NEWER}"):
        runner._reopen(threading.Event())


def test_migrate_check_shows_an_up_to_date_store(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store.open(db_url, tmp_path).close()
    assert main(["ladder", "migrate", "--check", "--db", db_url]) == 0
    out = capsys.readouterr().out
    assert f"schema {schema.LATEST}, this niwa: {schema.LATEST}: up to date" in out


def test_migrate_check_shows_the_migrations_due_and_changes_nothing(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = schema_4_store(db_url, tmp_path)
    assert main(["ladder", "migrate", "--check", "--db", url]) == 1
    due = schema.LATEST - 4
    assert f"schema 4, this niwa: {schema.LATEST}: {due} migrations due" in capsys.readouterr().out
    db = Database.open(url)
    assert schema.current_version(db) == 4
    db.close()


def test_migrate_brings_an_older_store_to_this_niwas_version(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = schema_4_store(db_url, tmp_path)
    assert main(["ladder", "migrate", "--db", url]) == 0
    assert f"migrated from 4 to {schema.LATEST}" in capsys.readouterr().out
