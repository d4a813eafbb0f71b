"""A bot's private output on a served ladder (a real server and web pages on loopback,
a real sandboxed bot): its debug text, its thinking, the rest of its notes and its
stderr reach its owner and the admins only, on every path: the API's replay and match
reads, the live streams, the web's match page, viewer data and replay download."""

from __future__ import annotations

import json
import signal
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from niwa.referee.private import PUBLIC_NOTE_CHARS
from tests.ladder.serving import wait_for
from tests.ladder.tiny_bots import THINKING_VALUE, cli, owner_tokens, talking_bot, write_bot
from tests.web.served import page, start_web_ladder

DEBUG = "6:-0.38 14:-0.35 thinker-debug"
NOTE = "thinker-note " + "".join(f"{i}:-0.{i:02d} " for i in range(12))
STDERR = "thinker-stderr line"

THINKER = talking_bot("thinker", STDERR, NOTE, DEBUG, thinking=True)
#: How thinking is spelled in a replay line, and its value in the viewer's data.
THINKING = (b'"thinking":', str(THINKING_VALUE).encode())


@dataclass
class Served:
    address: str
    web: str
    tokens: dict[str, str]
    stub: pb_grpc.LadderStub
    match: pb.Match  # a rated match the thinker played and stayed in

    def as_(self, who: str) -> tuple[tuple[str, str], ...]:
        return client.auth(self.tokens[who]) if who in self.tokens else ()

    def replay(self, who: str) -> pb.Replay:
        request = pb.GetReplayRequest(match_id=self.match.id)
        reply: pb.Replay = self.stub.GetReplay(request, metadata=self.as_(who))
        return reply


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("private")
    db = root / "ladder.db"
    tokens = owner_tokens(db, admins=("root",), owners=("alice", "bob"))
    thinker = write_bot(root, "thinker", "1.0.0", THINKER)
    proc, address, web = start_web_ladder(
        db, root / "ladder.log", "--game", "blossom", "--sparring", "builtin:greedy",
        "--seed", "7",
    )  # fmt: skip
    channel, stub = client.connect(address)
    try:
        code, out = cli("ladder", "submit", str(thinker), "--server", address,
                        "--token", tokens["alice"])  # fmt: skip
        assert code == 0 and "accepted" in out, out

        def rated() -> pb.Match | None:
            done = stub.ListMatches(pb.ListMatchesRequest(bot="thinker", state="done")).matches
            return next((m for m in done if m.kind == "rated"), None)

        yield Served(address, web, tokens, stub, wait_for("a rated match", rated))
    finally:
        channel.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait()


def public_text(content: bytes) -> None:
    """Assert ``content`` holds the note's public start and none of the private text."""
    assert NOTE[:PUBLIC_NOTE_CHARS].encode() in content
    for private in (DEBUG, NOTE, STDERR):
        assert private.encode() not in content, private
    for thinking in THINKING:
        assert thinking not in content, thinking


@pytest.mark.parametrize("who", ["nobody", "bob"], ids=["anonymous", "another-owner"])
def test_the_replay_for_others_has_no_debug_text_and_only_the_notes_start(
    served: Served, who: str
) -> None:
    reply = served.replay(who)
    public_text(reply.content)
    assert reply.redacted


@pytest.mark.parametrize("who", ["alice", "root"], ids=["owner", "admin"])
def test_the_replay_for_the_owner_and_admins_is_the_recorded_file_whole(
    served: Served, who: str
) -> None:
    reply = served.replay(who)
    assert DEBUG.encode() in reply.content and NOTE.encode() in reply.content
    assert all(thinking in reply.content for thinking in THINKING)
    assert not reply.redacted and reply.sha256 == served.match.replay_sha256


def test_the_public_replay_downloads_checked_and_verifies(
    served: Served, tmp_path: Path
) -> None:
    saved = tmp_path / "public.jsonl"
    code, _ = cli("ladder", "replay", str(served.match.id), "--server", served.address,
                  "-o", str(saved))  # fmt: skip
    assert code == 0
    public_text(saved.read_bytes())
    assert cli("replay", "verify", str(saved))[0] == 0


def test_the_owner_downloads_its_bots_debug_text_with_its_token(
    served: Served, tmp_path: Path
) -> None:
    saved = tmp_path / "own.jsonl"
    code, _ = cli("ladder", "replay", str(served.match.id), "--server", served.address,
                  "--token", served.tokens["alice"], "-o", str(saved))  # fmt: skip
    assert code == 0 and DEBUG.encode() in saved.read_bytes()


def test_the_web_match_page_and_its_viewer_data_show_only_the_notes_start(
    served: Served,
) -> None:
    public_text(page(f"{served.web}/matches/{served.match.id}").encode())


def test_the_web_replay_download_is_the_public_copy(served: Served) -> None:
    url = f"{served.web}/matches/{served.match.id}/replay.jsonl"
    with urllib.request.urlopen(url, timeout=30) as response:
        public_text(response.read())


def test_the_web_live_stream_carries_no_private_text(served: Served) -> None:
    url = f"{served.web}/matches/events?after={served.match.seq - 1}"
    with urllib.request.urlopen(url, timeout=30) as response:
        line = b""
        while not line.startswith(b"data: "):
            line = response.readline()
    event = json.loads(line.removeprefix(b"data: "))
    assert event["id"] == served.match.id
    for private in (DEBUG, NOTE, STDERR):
        assert private not in line.decode()


@pytest.mark.parametrize("who", ["nobody", "bob"], ids=["anonymous", "another-owner"])
def test_the_api_live_stream_and_match_list_carry_no_private_text_for_others(
    served: Served, who: str
) -> None:
    stream = served.stub.WatchMatches(
        pb.WatchMatchesRequest(after_seq=served.match.seq - 1), metadata=served.as_(who)
    )
    watched = next(iter(stream))
    stream.cancel()
    listed = served.stub.ListMatches(
        pb.ListMatchesRequest(bot="thinker", state="done"), metadata=served.as_(who)
    ).matches
    for match in (watched, *listed):
        text = str(match)
        for private in (DEBUG, NOTE, STDERR):
            assert private not in text


def test_reading_a_bots_logs_without_a_token_names_the_token_as_the_fix(
    served: Served,
) -> None:
    request = pb.GetBotLogsRequest(match_id=served.match.id, bot="thinker")
    with pytest.raises(grpc.RpcError) as caught:
        served.stub.GetBotLogs(request)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "token" in str(caught.value.details())


def test_the_owner_reads_the_stderr_of_its_bot_that_stayed_in(served: Served) -> None:
    code, out = cli("ladder", "logs", str(served.match.id), "--bot", "thinker",
                    "--server", served.address, "--token", served.tokens["alice"])  # fmt: skip
    assert code == 0 and STDERR in out and "ok" in out and "(kept until 20" in out


def test_an_admin_reads_any_bots_stderr(served: Served) -> None:
    request = pb.GetBotLogsRequest(match_id=served.match.id, bot="thinker")
    logs = served.stub.GetBotLogs(request, metadata=served.as_("root"))
    assert [seat.kept for seat in logs.seats] == ["kept"]
    assert STDERR in logs.seats[0].stderr_tail


def test_another_owner_is_denied_the_stderr_naming_whose_it_is(served: Served) -> None:
    request = pb.GetBotLogsRequest(match_id=served.match.id, bot="thinker")
    with pytest.raises(grpc.RpcError) as caught:
        served.stub.GetBotLogs(request, metadata=served.as_("bob"))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "for its owner (alice) and admins, not for bob" in str(caught.value.details())


def test_the_owners_live_stream_carries_its_bots_stderr(served: Served) -> None:
    stream = served.stub.WatchMatches(
        pb.WatchMatchesRequest(after_seq=served.match.seq - 1), metadata=served.as_("alice")
    )
    watched = next(iter(stream))
    stream.cancel()
    thinker = [r for r in watched.results if r.bot == "thinker@1.0.0"]
    assert thinker and STDERR in thinker[0].stderr_tail
