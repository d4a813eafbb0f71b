"""The ladder's replays are tamper-evident: the server checks the recorded SHA-256 on
every read, and ``niwa ladder replay`` checks what it downloaded before saving it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
import structlog

from niwa.cli import main
from niwa.ladder import client, server
from niwa.ladder.store import ACTIVE, Finished, SeatResult, Store
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from tests.polling import PATIENCE_S

REPLAY = b'{"header": "a replay"}\n{"move": 1}\n'


def finished_match(store: Store, content: bytes = REPLAY) -> int:
    """A finished match whose replay file holds ``content``, its hash recorded."""
    owner, _ = store.owners.add_owner("alice")
    a = store.bots.add_bot("a", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    b = store.bots.add_bot("b", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    match_id = store.matches.queue_match("blossom", "blossom@1", [a.id, b.id], 1)
    assert store.matches.claim_next() is not None
    path = store.files.replay_path(match_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    results = (SeatResult(0, a.id, 0, 1.0, "ok"), SeatResult(1, b.id, 1, 0.0, "ok"))
    digest = hashlib.sha256(content).hexdigest()
    assert store.matches.finish_match(match_id, Finished(results, 2, 0.1, digest), content)
    return match_id


def finished_match_at(url: str, folder: Path) -> int:
    """The store at ``url`` (its files in ``folder``) with a finished match; its id."""
    store = Store.open(url, folder)
    try:
        return finished_match(store)
    finally:
        store.close()


@pytest.fixture
def address(store: Store, tmp_path: Path) -> Iterator[str]:
    grpc_server, port = server.start(str(tmp_path / "ladder.db"), None, "127.0.0.1:0")
    yield f"127.0.0.1:{port}"
    grpc_server.stop(None).wait()


def get_replay(address: str, match_id: int) -> pb.Replay:
    channel, stub = client.connect(address)
    with channel:
        request = pb.GetReplayRequest(match_id=match_id)
        reply: pb.Replay = stub.GetReplay(request, timeout=PATIENCE_S)
    return reply


def test_a_replay_comes_with_its_recorded_sha256(store: Store, address: str) -> None:
    match_id = finished_match(store)
    reply = get_replay(address, match_id)
    assert reply.content == REPLAY
    assert reply.sha256 == hashlib.sha256(REPLAY).hexdigest()


def test_a_replay_changed_on_disk_is_refused_and_logged(store: Store, address: str) -> None:
    match_id = finished_match(store)
    store.files.replay_path(match_id).write_bytes(REPLAY.replace(b"1", b"2"))
    with structlog.testing.capture_logs() as logged, pytest.raises(grpc.RpcError) as caught:
        get_replay(address, match_id)
    assert caught.value.code() == grpc.StatusCode.DATA_LOSS
    details = caught.value.details() or ""
    assert f"the replay of match {match_id}" in details
    assert "no longer matches its recorded SHA-256" in details
    assert [e["match_id"] for e in logged if e["event"] == "replay_tampered"] == [match_id]


def test_the_cli_saves_a_replay_it_checked(
    store: Store, address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = finished_match(store)
    out = tmp_path / "match.jsonl"
    assert main(["ladder", "replay", str(match_id), "--server", address, "-o", str(out)]) == 0
    assert out.read_bytes() == REPLAY
    assert hashlib.sha256(REPLAY).hexdigest() in capsys.readouterr().err


def test_the_cli_reading_a_store_refuses_a_replay_changed_on_disk(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = finished_match(store)
    store.files.replay_path(match_id).write_bytes(b"forged\n")
    out = tmp_path / "match.jsonl"
    db = str(tmp_path / "ladder.db")
    assert main(["ladder", "replay", str(match_id), "--db", db, "-o", str(out)]) == 2
    assert "no longer matches its recorded SHA-256" in capsys.readouterr().err
    assert not out.exists()


class Forger(pb_grpc.LadderServicer):
    """A ladder (or anything between it and the client) that alters the content."""

    def __init__(self, reply: pb.Replay) -> None:
        self.reply = reply

    def GetReplay(self, request: pb.GetReplayRequest, context: grpc.ServicerContext) -> pb.Replay:
        return self.reply


@contextmanager
def forged(reply: pb.Replay) -> Iterator[str]:
    fake = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_LadderServicer_to_server(Forger(reply), fake)  # type: ignore[no-untyped-call]
    port = fake.add_insecure_port("127.0.0.1:0")
    fake.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        fake.stop(None)


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (pb.Replay(match_id=3, content=b"forged", sha256=hashlib.sha256(REPLAY).hexdigest()),
         "does not match its recorded SHA-256"),
        (pb.Replay(match_id=3, content=REPLAY), "sent no SHA-256"),
        (pb.Replay(match_id=4, content=REPLAY, sha256=hashlib.sha256(REPLAY).hexdigest()),
         "got match 4's"),
    ],
    ids=["content not matching the hash", "no hash", "another match"],
)  # fmt: skip
def test_the_cli_refuses_to_save_a_download_it_cannot_check(
    reply: pb.Replay, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match.jsonl"
    with forged(reply) as address:
        assert main(["ladder", "replay", "3", "--server", address, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not out.exists()


def test_the_cli_refuses_to_print_a_download_that_does_not_match(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    reply = pb.Replay(match_id=3, content=b"forged", sha256=hashlib.sha256(REPLAY).hexdigest())
    with forged(reply) as address:
        assert main(["ladder", "replay", "3", "--server", address]) == 2
    assert b"forged" not in capsysbinary.readouterr().out


def test_a_replay_printed_to_a_terminal_has_its_control_characters_escaped(
    store: Store, tmp_path: Path
) -> None:
    """A note keeps what the bot wrote in the file; a terminal sees it escaped."""
    hostile = '{"note": "\x1b]0;owned\x07\u202eevil\r"}\n'.encode()
    match_id = finished_match(store, hostile)
    leader, follower = pty.openpty()
    db = str(tmp_path / "ladder.db")
    run = subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "replay", str(match_id), "--db", db],
        stdout=follower, stderr=subprocess.PIPE, timeout=PATIENCE_S, check=False,
    )
    os.close(follower)
    shown = b""
    with contextlib.suppress(OSError):  # EIO once the writer is gone and all is read
        while chunk := os.read(leader, 4096):
            shown += chunk
    os.close(leader)
    assert run.returncode == 0, run.stderr
    assert b"\x1b" not in shown and "\u202e".encode() not in shown
    assert b"\\x1b]0;owned\\x07\\u202eevil\\r" in shown
