"""The API under load on a real server on loopback: streams hold no thread, every caller
class has its bounds, owners and admins are answered while anonymous callers saturate
theirs, and malformed requests get one-line statuses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from niwa.ladder import archive, client, reads, server
from niwa.ladder.admission import Admission, ApiLimits
from niwa.ladder.store import ACTIVE, Finished, SeatResult, Store
from niwa.ladder.views import BotListing
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from tests.ladder.serving import start_ladder, wait_for
from tests.polling import PATIENCE_S

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "python-bot"
#: A guard against a hang, far above what any answer takes, even on a busy machine.
DEADLINE_S = PATIENCE_S
SUBMIT = "/niwa.v1.Ladder/SubmitBot"


class Ladder:
    def __init__(self, store: Store, address: str, running: server.Server) -> None:
        self.store = store
        self.address = address
        self.running = running
        self.channels: list[grpc.Channel] = []

    @property
    def admission(self) -> Admission:
        assert self.running.admission is not None
        return self.running.admission

    def channel(self) -> grpc.Channel:
        """A channel with a connection of its own (a separate client)."""
        channel = grpc.insecure_channel(
            self.address, options=[*client.OPTIONS, ("grpc.use_local_subchannel_pool", 1)]
        )
        self.channels.append(channel)
        return channel

    def stub(self) -> pb_grpc.LadderStub:
        return pb_grpc.LadderStub(self.channel())  # type: ignore[no-untyped-call]


def serve(store: Store, tmp_path: Path, limits: ApiLimits | None = None) -> Iterator[Ladder]:
    grpc_server, port = server.start(str(tmp_path / "ladder.db"), None, "127.0.0.1:0",
                                     limits=limits)  # fmt: skip
    ladder = Ladder(store, f"127.0.0.1:{port}", grpc_server)
    yield ladder
    for channel in ladder.channels:
        channel.close()
    grpc_server.stop(None).wait()


@pytest.fixture
def ladder(store: Store, tmp_path: Path) -> Iterator[Ladder]:
    yield from serve(store, tmp_path)


@pytest.fixture
def crowded(store: Store, tmp_path: Path) -> Iterator[Ladder]:
    """Per-address limits lifted: every test channel comes from 127.0.0.1."""
    yield from serve(store, tmp_path, ApiLimits(streams_per_peer=1000, calls_per_peer=1000))


def status(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error: grpc.RpcError = caught.value
    return error


def watch(stub: pb_grpc.LadderStub, token: str | None = None) -> grpc.Call:
    """Open a watcher and wait for its headers: the server has admitted or refused it."""
    call = stub.WatchMatches(
        pb.WatchMatchesRequest(), metadata=client.auth(token), timeout=DEADLINE_S
    )
    call.initial_metadata()
    return call  # type: ignore[no-any-return]


def held_upload(channel: grpc.Channel, token: str | None) -> tuple[grpc.Future, threading.Event]:
    """A SubmitBot call whose archive is held back until the event is set."""
    release = threading.Event()

    def requests() -> Iterator[pb.SubmitBotRequest]:
        release.wait(DEADLINE_S)
        yield pb.SubmitBotRequest(archive=b"not sent before release")

    call = channel.stream_unary(
        SUBMIT,
        request_serializer=pb.SubmitBotRequest.SerializeToString,
        response_deserializer=pb.SubmitBotResponse.FromString,
    ).future(requests(), metadata=client.auth(token), timeout=DEADLINE_S)
    return call, release


def test_owners_and_admins_are_answered_while_100_anonymous_watchers_are_open(
    crowded: Ladder,
) -> None:
    _, owner_token = crowded.store.add_owner("alice")
    _, admin_token = crowded.store.add_owner("root", admin=True)
    stubs = [crowded.stub() for _ in range(10)]
    watchers = [watch(stubs[i % 10]) for i in range(100)]
    assert all(w.is_active() for w in watchers)

    owner, admin = crowded.stub(), crowded.stub()
    archive_bytes = archive.pack_directory(EXAMPLE_BOT)
    submitted = owner.SubmitBot(
        iter([pb.SubmitBotRequest(archive=archive_bytes)]), metadata=client.auth(owner_token),
        timeout=DEADLINE_S,
    )  # fmt: skip
    assert [b.name for b in submitted.bots]
    listing = owner.ListBots(
        pb.ListBotsRequest(all=True), metadata=client.auth(owner_token), timeout=DEADLINE_S
    )
    assert {b.id for b in submitted.bots} <= {b.id for b in listing.bots}
    boards = admin.GetLeaderboard(
        pb.LeaderboardRequest(), metadata=client.auth(admin_token), timeout=DEADLINE_S
    )
    assert isinstance(boards, pb.LeaderboardResponse)
    for w in watchers:
        w.cancel()


def test_the_101st_anonymous_watcher_is_refused_with_the_limit(crowded: Ladder) -> None:
    stubs = [crowded.stub() for _ in range(10)]
    watchers = [watch(stubs[i % 10]) for i in range(100)]
    refused = watch(stubs[0])
    error = status(lambda: next(iter(refused)))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 100 anonymous streams" in (error.details() or "")
    for w in watchers:
        w.cancel()


def test_ended_watchers_give_back_their_places(crowded: Ladder) -> None:
    stubs = [crowded.stub() for _ in range(10)]
    watchers = [watch(stubs[i % 10]) for i in range(100)]
    for w in watchers:
        w.cancel()
    streams = crowded.admission.anonymous_streams
    wait_for("the places of 100 cancelled watchers", lambda: streams.used == 0)
    assert watch(stubs[0]).is_active()


def test_one_address_may_hold_10_anonymous_watchers(ladder: Ladder) -> None:
    stubs = [ladder.stub() for _ in range(2)]
    watchers = [watch(stubs[i % 2]) for i in range(10)]
    error = status(lambda: next(iter(watch(stubs[0]))))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 10 anonymous streams at once per address" in (error.details() or "")
    for w in watchers:
        w.cancel()


def test_one_token_may_hold_4_streams(ladder: Ladder) -> None:
    _, token = ladder.store.add_owner("alice")
    stub = ladder.stub()
    watchers = [watch(stub, token) for _ in range(4)]
    error = status(lambda: next(iter(watch(stub, token))))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 4 streams with a token at once per token" in (error.details() or "")
    for w in watchers:
        w.cancel()


def test_an_anonymous_upload_is_refused_before_its_archive_is_sent(ladder: Ladder) -> None:
    call, release = held_upload(ladder.channel(), None)
    error = status(call.result)
    release.set()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "needs a token" in (error.details() or "")


def test_an_upload_with_an_unknown_token_is_refused_before_its_archive_is_sent(
    ladder: Ladder,
) -> None:
    call, release = held_upload(ladder.channel(), "niwa_made_up")
    error = status(call.result)
    release.set()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "unknown token" in (error.details() or "")


def test_a_third_upload_at_once_is_refused(ladder: Ladder) -> None:
    tokens = [ladder.store.add_owner(name)[1] for name in ("alice", "bob", "carol")]
    held = [held_upload(ladder.channel(), t) for t in tokens[:2]]
    wait_for("two uploads admitted", lambda: ladder.admission.uploads.used == 2)
    third, release = held_upload(ladder.channel(), tokens[2])
    error = status(third.result)
    for _, r in held:
        r.set()
    release.set()
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 2 uploads at once" in (error.details() or "")


def test_an_owner_uploads_one_archive_at_a_time(ladder: Ladder) -> None:
    _, token = ladder.store.add_owner("alice")
    _, release_first = held_upload(ladder.channel(), token)
    wait_for("the first upload admitted", lambda: ladder.admission.uploads.used == 1)
    second, release_second = held_upload(ladder.channel(), token)
    error = status(second.result)
    release_first.set()
    release_second.set()
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 1 uploads at once per owner" in (error.details() or "")


def queued_matches(store: Store, count: int) -> None:
    owner, _ = store.add_owner("alice")
    a = store.add_bot("a", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    b = store.add_bot("b", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    for seed in range(count):
        store.queue_match("blossom", "blossom@1", [a.id, b.id], seed)


def test_list_matches_answers_at_most_200(ladder: Ladder) -> None:
    queued_matches(ladder.store, 230)
    reply = ladder.stub().ListMatches(pb.ListMatchesRequest(limit=100_000), timeout=DEADLINE_S)
    assert len(reply.matches) == reads.MAX_LIST == 200


def test_a_negative_list_limit_is_invalid(ladder: Ladder) -> None:
    queued_matches(ladder.store, 3)
    stub = ladder.stub()
    error = status(lambda: stub.ListMatches(pb.ListMatchesRequest(limit=-1), timeout=DEADLINE_S))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "limit -1: give 1 to 200" in (error.details() or "")


def test_list_matches_pages_with_before_id(ladder: Ladder) -> None:
    queued_matches(ladder.store, 5)
    stub = ladder.stub()
    first = stub.ListMatches(pb.ListMatchesRequest(limit=3), timeout=DEADLINE_S).matches
    rest = stub.ListMatches(
        pb.ListMatchesRequest(limit=3, before_id=first[-1].id), timeout=DEADLINE_S
    ).matches
    assert [m.id for m in first] + [m.id for m in rest] == [5, 4, 3, 2, 1]


MALFORMED = {
    "negative bot id": ("ListMatches", pb.ListMatchesRequest(bot_id=-5),
                        grpc.StatusCode.INVALID_ARGUMENT),
    "negative match id": ("GetReplay", pb.GetReplayRequest(match_id=-1),
                          grpc.StatusCode.INVALID_ARGUMENT),
    "unknown match": ("GetReplay", pb.GetReplayRequest(match_id=10**15),
                      grpc.StatusCode.NOT_FOUND),
    "huge game name": ("ListBots", pb.ListBotsRequest(game="g" * 1_000_000),
                       grpc.StatusCode.RESOURCE_EXHAUSTED),
    "long game name": ("ListBots", pb.ListBotsRequest(game="g" * 60_000),
                       grpc.StatusCode.INVALID_ARGUMENT),
    "unknown game": ("GetLeaderboard", pb.LeaderboardRequest(game="chess\n\x1b[2J"),
                     grpc.StatusCode.NOT_FOUND),
    "unknown state": ("ListMatches", pb.ListMatchesRequest(state="x" * 5000),
                      grpc.StatusCode.INVALID_ARGUMENT),
    "negative before_id": ("ListMatches", pb.ListMatchesRequest(before_id=-1),
                           grpc.StatusCode.INVALID_ARGUMENT),
    "watch of an unknown game": ("WatchMatches", pb.WatchMatchesRequest(game="nope"),
                                 grpc.StatusCode.NOT_FOUND),
    "negative after_seq": ("WatchMatches", pb.WatchMatchesRequest(after_seq=-3),
                           grpc.StatusCode.INVALID_ARGUMENT),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_request_gets_one_line_and_the_right_status(ladder: Ladder, case: str) -> None:
    method, request, code = MALFORMED[case]
    stub = ladder.stub()

    def call() -> object:
        reply = getattr(stub, method)(request, timeout=DEADLINE_S)
        return next(iter(reply)) if method == "WatchMatches" else reply

    error = status(call)
    details = error.details() or ""
    assert error.code() == code
    assert "\n" not in details and "Traceback" not in details and len(details) < 400


def test_a_request_that_is_not_a_protobuf_message_is_invalid(ladder: Ladder) -> None:
    list_bots = ladder.channel().unary_unary("/niwa.v1.Ladder/ListBots")
    error = status(lambda: list_bots(b"\xff\xff\xff\x01garbage", timeout=DEADLINE_S))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "the request is not a valid ListBots request message"


def test_retiring_an_unknown_bot_is_not_found(ladder: Ladder) -> None:
    _, token = ladder.store.add_owner("root", admin=True)
    stub = ladder.stub()
    error = status(lambda: stub.RetireBot(
        pb.RetireBotRequest(bot_id=999), metadata=client.auth(token), timeout=DEADLINE_S
    ))  # fmt: skip
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "no bot has id 999" in (error.details() or "")


def test_an_unexpected_failure_is_internal_with_one_line(
    ladder: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: reads.Reads, game_name: str = "", everyone: bool = False) -> BotListing:
        raise RuntimeError("disk on fire\nline two")

    monkeypatch.setattr(reads.Reads, "list_bots", broken)
    stub = ladder.stub()
    error = status(lambda: stub.ListBots(pb.ListBotsRequest(), timeout=DEADLINE_S))
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == "the ladder failed on ListBots: its log has the details"


def test_a_watcher_receives_a_match_that_finishes_after_it_connected(ladder: Ladder) -> None:
    store = ladder.store
    owner, _ = store.add_owner("alice")
    a = store.add_bot("a", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    b = store.add_bot("b", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    match_id = store.queue_match("blossom", "blossom@1", [a.id, b.id], 7)
    watcher = watch(ladder.stub())
    claimed = store.claim_next()
    assert claimed is not None and claimed.id == match_id
    results = (SeatResult(0, a.id, 0, 1.0, "ok"), SeatResult(1, b.id, 1, 0.0, "ok"))
    store.finish_match(match_id, Finished(results, 10, 0.5, "0" * 64))
    first = next(iter(watcher))
    watcher.cancel()
    assert (first.id, first.state) == (match_id, "done")


def test_niwa_ladder_serve_takes_the_stream_limits(tmp_path: Path) -> None:
    proc, address = start_ladder(
        tmp_path / "ladder.db", tmp_path / "ladder.log", "--matches", "0",
        "--max-streams", "3", "--max-streams-per-address", "2",
    )  # fmt: skip
    try:
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]
            watchers = [watch(stub) for _ in range(2)]
            error = status(lambda: next(iter(watch(stub))))
            for w in watchers:
                w.cancel()
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)
    assert "at most 2 anonymous streams at once per address" in (error.details() or "")
