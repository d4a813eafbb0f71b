"""The matches of a duplicate round share one seed, so one deal: a finished one is
withheld (seed, result, replay, logs, viewer page) from everyone but admins and ``--db``
reads while another of its round is still queued or running."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from starlette.testclient import TestClient

from niwa.ladder import client, server
from niwa.ladder.reads import WAITING, Reads
from niwa.ladder.store import ACTIVE, DONE, Finished, Owner, SeatResult, Store, StoreError
from niwa.ladder.views import MatchQuery
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.web.app import create_app
from tests.polling import PATIENCE_S
from tests.web.matches import play

SEED = 424242


@dataclass
class Round:
    store: Store
    done: int  # finished, its sibling still running
    running: int
    owner: Owner  # owns both bots
    owner_token: str
    other: Owner
    admin: Owner
    admin_token: str
    replay: bytes  # a real blossom game's, played with the round's seed

    def reads(self, viewer: Owner | None) -> Reads:
        return Reads(self.store, viewer=viewer)

    def finish(self, match_id: int) -> None:
        match = self.store.matches.match(match_id)
        path = self.store.files.replay_path(match_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.replay)
        results = tuple(SeatResult(s, b, s, 1.0 - s, "ok") for s, b in enumerate(match.seats))
        digest = hashlib.sha256(self.replay).hexdigest()
        finished = Finished(results, 3, 0.1, digest)
        assert self.store.matches.finish_match(match_id, finished, self.replay)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return play("blossom", tmp_path_factory.mktemp("round"), seed=SEED).read_bytes()


def build_round(store: Store, replay: bytes) -> Round:
    owner, owner_token = store.owners.add_owner("alice")
    other, _ = store.owners.add_owner("bob")
    admin, admin_token = store.owners.add_owner("root", admin=True)
    a = store.bots.add_bot("a", "1", "blossom", owner.id, "archive", "ha", ACTIVE).id
    b = store.bots.add_bot("b", "1", "blossom", owner.id, "archive", "hb", ACTIVE).id
    group = store.matches.next_duplicate_group()
    first = store.matches.queue_match("blossom", "blossom@1", [a, b], SEED, duplicate_group=group)
    second = store.matches.queue_match("blossom", "blossom@1", [b, a], SEED, duplicate_group=group)
    claimed = store.matches.claim_next()
    assert claimed is not None and claimed.id == first
    made = Round(store, first, second, owner, owner_token, other, admin, admin_token, replay)
    made.finish(first)
    assert store.matches.claim_next() is not None  # the sibling now runs
    return made


@pytest.fixture
def duplicate_round(any_store: Store, recorded: bytes) -> Round:
    return build_round(any_store, recorded)


@pytest.fixture(params=["anonymous", "another owner", "its own owner"])
def non_admin(request: pytest.FixtureRequest, duplicate_round: Round) -> Reads:
    """The reads of a caller who is not an admin: even the owner of both bots, whose
    bots play the running sibling, would learn its deal."""
    r = duplicate_round
    return r.reads(
        {"anonymous": None, "another owner": r.other, "its own owner": r.owner}[request.param]
    )


def test_a_finished_match_of_a_running_round_shows_no_seed_or_result(
    duplicate_round: Round, non_admin: Reads
) -> None:
    view = non_admin.match_view(non_admin.match(duplicate_round.done))
    assert (view.state, view.seed, view.results, view.replay_sha256) == (WAITING, 0, (), "")


def test_a_finished_match_of_a_running_round_has_no_replay(
    duplicate_round: Round, non_admin: Reads
) -> None:
    with pytest.raises(StoreError, match="waiting for its duplicate round"):
        non_admin.replay(duplicate_round.done)


def test_a_finished_match_of_a_running_round_has_no_bot_logs(
    duplicate_round: Round, non_admin: Reads
) -> None:
    with pytest.raises(StoreError, match="waiting for its duplicate round"):
        non_admin.bot_logs(duplicate_round.done, "a")


def test_the_match_list_shows_the_withheld_match_as_waiting(duplicate_round: Round) -> None:
    listed = {m.id: m for m in duplicate_round.reads(None).list_matches(MatchQuery())}
    assert listed[duplicate_round.done].state == WAITING
    assert listed[duplicate_round.done].seed == 0
    assert [m.state for m in duplicate_round.reads(None).finished_after(None, 0)] == [WAITING]


def test_an_admin_reads_the_finished_match_of_a_running_round(duplicate_round: Round) -> None:
    reads = duplicate_round.reads(duplicate_round.admin)
    view = reads.match_view(reads.match(duplicate_round.done))
    assert (view.state, view.seed, len(view.results)) == (DONE, SEED, 2)
    assert reads.replay(duplicate_round.done).content == duplicate_round.replay


def test_a_read_of_the_store_itself_sees_the_withheld_match(duplicate_round: Round) -> None:
    reads = Reads(duplicate_round.store, trusted=True)
    assert reads.match_view(reads.match(duplicate_round.done)).seed == SEED


def test_once_the_round_has_ended_everyone_reads_the_public_copy(
    duplicate_round: Round,
) -> None:
    duplicate_round.finish(duplicate_round.running)
    reads = duplicate_round.reads(None)
    for match_id in (duplicate_round.done, duplicate_round.running):
        view = reads.match_view(reads.match(match_id))
        assert (view.state, view.seed, len(view.results)) == (DONE, SEED, 2)
        assert reads.replay(match_id).match_id == match_id


def test_the_match_that_ends_a_round_brings_the_waiting_ones_whole_to_a_stream(
    duplicate_round: Round,
) -> None:
    r = duplicate_round
    shown = r.store.matches.match(r.done).seq
    assert shown is not None
    r.finish(r.running)
    sent = r.reads(None).finished_after(None, shown)
    assert [(m.id, m.state, m.seed) for m in sent] == [
        (r.done, DONE, SEED),
        (r.running, DONE, SEED),
    ]


def test_an_admins_stream_sends_each_match_of_a_round_once(duplicate_round: Round) -> None:
    r = duplicate_round
    shown = r.store.matches.match(r.done).seq
    assert shown is not None
    r.finish(r.running)
    assert [m.id for m in r.reads(r.admin).finished_after(None, shown)] == [r.running]


def test_a_bots_failure_list_leaves_out_a_withheld_match_until_its_round_ends(
    duplicate_round: Round,
) -> None:
    r = duplicate_round
    bot = r.store.matches.match(r.done).seats[1]
    r.store.db.execute(
        "UPDATE results SET status = 'timeout', reason = 'TIMEOUT', out_step = 7 "
        "WHERE match_id = ? AND bot_id = ?",
        (r.done, bot),
    )
    assert r.reads(None).bot_failures(bot) == []
    assert [f.match_id for f in r.reads(r.admin).bot_failures(bot)] == [r.done]
    r.finish(r.running)
    assert [f.match_id for f in r.reads(None).bot_failures(bot)] == [r.done]


@pytest.fixture
def sqlite_round(tmp_path: Path, recorded: bytes) -> Iterator[Round]:
    store = Store.open(str(tmp_path / "ladder.db"), tmp_path)
    try:
        yield build_round(store, recorded)
    finally:
        store.close()


def test_the_web_page_and_replay_of_a_withheld_match_show_nothing_of_the_deal(
    sqlite_round: Round,
) -> None:
    with TestClient(create_app(sqlite_round.store)) as web:
        page = web.get(f"/matches/{sqlite_round.done}")
        download = web.get(f"/matches/{sqlite_round.done}/replay.jsonl")
    assert page.status_code == 200 and WAITING in page.text
    assert str(SEED) not in page.text and "niwa-payload" not in page.text
    assert download.status_code == 400 and b'"kind":"header"' not in download.content


def test_the_web_page_shows_the_match_once_its_round_has_ended(sqlite_round: Round) -> None:
    sqlite_round.finish(sqlite_round.running)
    with TestClient(create_app(sqlite_round.store)) as web:
        page = web.get(f"/matches/{sqlite_round.done}")
    assert page.status_code == 200 and f"seed {SEED}" in page.text


@pytest.fixture
def address(sqlite_round: Round, tmp_path: Path) -> Iterator[str]:
    grpc_server, port = server.start(str(tmp_path / "ladder.db"), tmp_path, "127.0.0.1:0")
    yield f"127.0.0.1:{port}"
    grpc_server.stop(None).wait()


def served_replay(address: str, match_id: int, token: str = "") -> pb.Replay:
    channel, stub = client.connect(address)
    metadata = client.auth(token) if token else ()
    with channel:
        reply: pb.Replay = stub.GetReplay(
            pb.GetReplayRequest(match_id=match_id), timeout=PATIENCE_S, metadata=metadata
        )
    return reply


def test_the_served_api_refuses_the_owner_and_serves_an_admin(
    sqlite_round: Round, address: str
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        served_replay(address, sqlite_round.done, sqlite_round.owner_token)
    assert "waiting for its duplicate round" in (caught.value.details() or "")
    reply = served_replay(address, sqlite_round.done, sqlite_round.admin_token)
    assert reply.content == sqlite_round.replay


def test_the_served_match_list_shows_the_withheld_match_as_waiting_without_its_seed(
    sqlite_round: Round, address: str
) -> None:
    channel, stub = client.connect(address)
    with channel:
        reply = stub.ListMatches(
            pb.ListMatchesRequest(),
            timeout=PATIENCE_S,
            metadata=client.auth(sqlite_round.owner_token),
        )
    listed = {m.id: m for m in reply.matches}
    withheld = listed[sqlite_round.done]
    assert (withheld.state, withheld.seed, len(withheld.results)) == (WAITING, 0, 0)
