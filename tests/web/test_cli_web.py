"""``niwa ladder web``: the pages of a store, as a real process."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import pytest

from niwa.cli import main
from tests.polling import PATIENCE_S
from tests.web.ladders import played_store
from tests.web.served import get, page, start_ladder_web


def test_ladder_web_serves_a_store_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = played_store(tmp_path, matches=1)
    proc, web = start_ladder_web(db)
    try:
        assert "random@1" in page(web + "/games/blossom")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=PATIENCE_S) == 0


def test_ladder_web_offers_sign_in_and_with_no_signin_serves_anonymous_pages_only(
    tmp_path: Path,
) -> None:
    db = played_store(tmp_path, matches=1)
    for flags, offered in (((), True), (("--no-signin",), False)):
        proc, web = start_ladder_web(db, *flags)
        try:
            assert ('href="/signin"' in page(web + "/")) is offered
            assert get(web + "/signin")[0] == (200 if offered else 404)
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=PATIENCE_S) == 0


def test_ladder_web_without_a_store_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", "web", "--db", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert "no ladder store at" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "none.db").exists()


def test_ladder_web_on_a_taken_port_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = played_store(tmp_path, matches=1)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["ladder", "web", "--db", str(db), "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve the web pages on 127.0.0.1:{port}: Address already in use" in err
    assert len(err.strip().splitlines()) == 1


def test_the_demo_serves_its_pages_only_while_it_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", "demo", "--data", str(tmp_path), "--web", "127.0.0.1:0"]) == 2
    assert "add --serve" in capsys.readouterr().err
