"""Secrets from files: the database password (``--password-file``, or ``password_file``
in a config file) and API tokens (``--token-file``), refused when others may read them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from niwa.cli import main
from niwa.ladder import db
from niwa.ladder.store import Store
from tests import postgres
from tests.ladder.serving import printed_address, start_ladder, stop
from tests.postgres import Server
from tests.web.served import get

PASSWORD = "correct horse 7"


@pytest.fixture(scope="module")
def guarded() -> Iterator[tuple[Server, str]]:
    """A PostgreSQL server of its own where the role ``ladder`` must give its password
    (scram-sha-256; every other role is trusted); the URL of the role's database."""
    bin_dir = postgres.binaries()
    if bin_dir is None:
        pytest.skip(postgres.MISSING)
    server = Server(bin_dir)
    try:
        with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
            conn.execute("SET password_encryption = 'scram-sha-256'")
            conn.execute(f"CREATE ROLE ladder LOGIN PASSWORD '{PASSWORD}'")
            conn.execute("CREATE DATABASE ladder OWNER ladder")
        hba = server.data / "pg_hba.conf"
        hba.write_text("local all ladder scram-sha-256\n" + hba.read_text())
        server._run("pg_ctl", "-D", str(server.data), "reload")
        yield server, f"postgresql://ladder@/ladder?host={server.socket_dir}"
    finally:
        server.stop()


def secret(tmp_path: Path, text: str, mode: int = 0o600, name: str = "secret") -> Path:
    path = tmp_path / name
    path.write_text(text + "\n")
    path.chmod(mode)
    return path


def test_the_password_file_lets_a_guarded_role_in(
    guarded: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = guarded
    password = secret(tmp_path, PASSWORD)
    argv = ["ladder", "user", "add", "alice", "--db", url, "--password-file", str(password)]
    assert main([*argv, "--data", str(tmp_path)]) == 0
    assert "created owner alice" in capsys.readouterr().out


def test_without_the_password_file_the_guarded_role_is_refused(
    guarded: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = guarded
    assert main(["ladder", "user", "add", "bob", "--db", url, "--data", str(tmp_path)]) == 2
    assert "cannot connect to the PostgreSQL store" in capsys.readouterr().err


def test_a_wrong_password_is_refused_and_never_shown(
    guarded: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = guarded
    wrong = secret(tmp_path, "not the password")
    argv = ["ladder", "user", "add", "carol", "--db", url, "--password-file", str(wrong)]
    assert main([*argv, "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "password authentication failed" in err and "not the password" not in err


def test_a_password_file_others_may_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = secret(tmp_path, "pw", mode=0o640)
    url = "postgresql://ladder@/ladder?host=/nonexistent"
    assert main(["ladder", "web", "--db", url, "--data", str(tmp_path),
                 "--password-file", str(shared)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "read or written by its group or others (mode 0640)" in err
    assert f"chmod 600 {shared}" in err


def test_a_password_file_with_a_sqlite_store_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    password = secret(tmp_path, "pw")
    db = str(tmp_path / "ladder.db")
    assert main(["ladder", "user", "add", "dan", "--db", db, "--password-file", str(password)]) == 2
    assert "a password file goes with a postgresql:// store" in capsys.readouterr().err


def test_user_add_writes_the_token_to_a_new_file_only_its_owner_may_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = tmp_path / "ladder.db", tmp_path / "admin.token"
    assert main(["ladder", "user", "add", "root", "--admin", "--db", str(db),
                 "--token-file", str(out)]) == 0  # fmt: skip
    shown = capsys.readouterr().out
    assert os.stat(out).st_mode & 0o777 == 0o600
    token = out.read_text().strip()
    assert token not in shown
    store = Store.open(str(db), tmp_path)
    try:
        owner = store.owners.owner_for_token(token)
    finally:
        store.close()
    assert owner is not None and (owner.name, owner.is_admin) == ("root", True)


def test_user_add_never_writes_over_a_file_and_then_makes_no_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = tmp_path / "ladder.db", secret(tmp_path, "kept")
    assert main(["ladder", "user", "add", "root", "--db", str(db), "--token-file", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert out.read_text() == "kept\n"
    assert main(["ladder", "user", "add", "root", "--db", str(db)]) == 0  # the name is free


def test_a_token_file_others_may_read_is_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = secret(tmp_path, "niwa_x", mode=0o644)
    assert main(["ladder", "retire", "1", "--server", "127.0.0.1:1",
                 "--token-file", str(token)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "token file" in err and "chmod 600" in err and "no ladder answers" not in err


def test_a_token_file_is_the_token_a_served_ladder_sees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, token = tmp_path / "ladder.db", tmp_path / "alice.token"
    add = ["ladder", "user", "add", "alice", "--db", str(db), "--token-file", str(token)]
    assert main(add) == 0
    forged = secret(tmp_path, "niwa_not-a-token", name="forged.token")
    ladder, address = start_ladder(db, tmp_path / "serve.log")
    try:
        capsys.readouterr()
        retire = ["ladder", "retire", "99", "--server", address, "--token-file"]
        assert main([*retire, str(forged)]) == 2
        assert "unknown token" in capsys.readouterr().err
        assert main([*retire, str(token)]) == 2  # alice is known: only the bot is not
        err = capsys.readouterr().err
        assert "unknown token" not in err and "99" in err
    finally:
        stop(ladder)


def test_the_password_file_leaves_the_urls_other_parameters_as_written(tmp_path: Path) -> None:
    url = "postgresql://ladder@/ladder?host=/run/pg&sslmode=require"
    named = db.with_password_file(url, secret(tmp_path, "pw"))
    assert named.startswith(url + "&password_file=")
    assert db._password(named) == (url, {"password": "pw"})


def test_the_web_front_given_a_password_file_is_ready(
    guarded: tuple[Server, str], tmp_path: Path
) -> None:
    """Its pages and its /readyz check both connect with the file's password (the check
    used to connect without it: 503 while the pages worked)."""
    _, url = guarded
    password = secret(tmp_path, PASSWORD)
    (tmp_path / "runner").mkdir()
    runner, _ = start_ladder(url, tmp_path / "runner.log", "--data", str(tmp_path / "runner"),
                             "--password-file", str(password), "--matches", "0")  # fmt: skip
    web = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", url, "--data", str(tmp_path),
         "--password-file", str(password), "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=(tmp_path / "web.log").open("a"), text=True,
    )  # fmt: skip
    try:
        address = printed_address(web, r"web on (http://\S+)", tmp_path / "web.log")
        status, body, _ = get(f"{address}/readyz", accept="application/json")
        assert status == 200 and json.loads(body)["status"] == "ready", body
    finally:
        stop(web)
        stop(runner)
