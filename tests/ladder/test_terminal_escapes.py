"""``niwa ladder bots|leaderboard|matches|watch`` print names, versions, owners, reasons
and errors escaped: a row written with escape sequences, CR, newlines and bidi
overrides (as a hostile owner, bot or server could) cannot drive the terminal or forge
a row. Read from a real store (--db) and over gRPC from a real server on loopback."""

from __future__ import annotations

import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import server
from niwa.ladder.store import ACTIVE, Finished, SeatResult, Store
from niwa.referee.text import printable
from tests.ladder.serving import PATIENCE_S

EVIL = "\x1b[2J\x1b]0;owned\x07\rfake\n  1  row\u202eevil\x08"
RAW = ["\x1b", "\x07", "\r", "\u202e", "\x08"]


def _assert_escaped(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"raw {ch!r} reached the terminal"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Two active bots, a finished match and a failed one, every text field hostile.

    The rows are written with SQL after the store's own calls: whatever the store
    accepts today, what it printed is what is tested."""
    path = tmp_path / "ladder.db"
    store = Store.open(str(path))
    try:
        owner, _ = store.owners.add_owner("alice")
        a = store.bots.add_bot("alpha", "1", "blossom", owner.id, "alpha", None, status=ACTIVE)
        b = store.bots.add_bot("beta", "1", "blossom", owner.id, "beta", None, status=ACTIVE)
        done = store.matches.queue_match("blossom", "blossom@1", [a.id, b.id], seed=1)
        assert store.matches.claim_next() is not None
        store.matches.finish_match(done, Finished(
            (SeatResult(0, a.id, 0, 5.0, "ok"), SeatResult(1, b.id, 1, 1.0, "out", EVIL)),
            decisions=10, wall_s=1.0, replay_sha256="0" * 64,
        ))
        again = store.matches.queue_match("blossom", "blossom@1", [b.id, a.id], seed=3)
        assert store.matches.claim_next() is not None
        store.matches.finish_match(again, Finished(  # finish number 2: what watch --after 1 streams
            (SeatResult(0, b.id, 1, 1.0, "out", EVIL), SeatResult(1, a.id, 0, 5.0, "ok")),
            decisions=10, wall_s=1.0, replay_sha256="0" * 64,
        ))
        store.matches.queue_match("blossom", "blossom@1", [a.id, b.id], seed=2)
        failed = store.matches.claim_next()
        assert failed is not None
        store.matches.fail_match(failed.id, EVIL, retries=0)
        store.db.execute("UPDATE bots SET name = ? || name, version = ?, reason = ?",
                         (EVIL, EVIL, EVIL))
        store.db.execute("UPDATE owners SET name = ? WHERE id = ?", (EVIL, owner.id))
    finally:
        store.close()
    return path


@pytest.fixture
def address(db: Path) -> Iterator[str]:
    grpc_server, port = server.start(str(db), None, "127.0.0.1:0")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        grpc_server.stop(grace=None)


COMMANDS = [["bots", "--all"], ["leaderboard"], ["matches"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_listing_from_the_store_escapes_every_field(
    command: list[str], db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", *command, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    _assert_escaped(out)
    assert printable(EVIL, 20)[:-1] in out  # the text is shown, visibly escaped


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_listing_from_the_server_escapes_every_field(
    command: list[str], address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", *command, "--server", address]) == 0
    out = capsys.readouterr().out
    _assert_escaped(out)
    rows = out.splitlines()
    # matches: a header, three matches, and a line under each of the two out seats;
    # leaderboard: a header, two rows, the player counts' note and one seat effect
    assert len(rows) == {"bots": 3, "leaderboard": 7, "matches": 6}[command[0]]


def test_the_bots_listing_has_one_line_per_bot(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newline in a name or version cannot add a row."""
    assert main(["ladder", "bots", "--all", "--db", str(db)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_watch_escapes_what_it_streams(address: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "watch", "--server", address, "--after", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        # A guard against hanging, not a speed requirement.
        assert select.select([proc.stdout], [], [], PATIENCE_S)[0], "watch printed nothing"
        line = proc.stdout.readline()
    finally:
        proc.kill()
        proc.wait()
    assert line.endswith("\n") and line.split()[0] == "2"
    _assert_escaped(line)
    assert printable("out: " + EVIL.split(":")[0], 30)[:-1] in line
