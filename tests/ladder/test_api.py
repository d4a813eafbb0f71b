"""The gRPC API on a real server: tokens, ownership, health, reflection, TLS."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from niwa.ladder import archive, client, server
from niwa.ladder.store import ACTIVE, PENDING, VALIDATION, Store
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "python-bot"


class Ladder:
    def __init__(self, store: Store, address: str, stub: pb_grpc.LadderStub) -> None:
        self.store = store
        self.address = address
        self.stub = stub


@pytest.fixture
def ladder(store: Store, tmp_path: Path) -> Iterator[Ladder]:
    grpc_server, port = server.start(str(tmp_path / "ladder.db"), None, "127.0.0.1:0")
    channel, stub = client.connect(f"127.0.0.1:{port}")
    yield Ladder(store, f"127.0.0.1:{port}", stub)
    channel.close()
    grpc_server.stop(None)


def owned_bot(store: Store, owner_name: str) -> tuple[int, str]:
    owner, token = store.owners.add_owner(owner_name)
    bot = store.bots.add_bot(f"{owner_name}-bot", "1", "blossom", owner.id, "archive", "h", ACTIVE)
    return bot.id, token


def code_of(call: Callable[[], object]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    code: grpc.StatusCode = caught.value.code()
    return code


def test_submitting_without_a_token_is_refused(ladder: Ladder) -> None:
    request = pb.SubmitBotRequest(archive=archive.pack_directory(EXAMPLE_BOT))
    with pytest.raises(grpc.RpcError) as caught:
        ladder.stub.SubmitBot(iter([request]))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "needs a token" in (caught.value.details() or "")


def test_submitting_with_a_wrong_token_is_refused(ladder: Ladder) -> None:
    request = pb.SubmitBotRequest(archive=archive.pack_directory(EXAMPLE_BOT))
    call = lambda: ladder.stub.SubmitBot(iter([request]), metadata=client.auth("niwa_wrong"))  # noqa: E731
    assert code_of(call) == grpc.StatusCode.UNAUTHENTICATED


def test_an_owner_cannot_retire_another_owners_bot(ladder: Ladder) -> None:
    alice_bot, _ = owned_bot(ladder.store, "alice")
    _, bob_token = owned_bot(ladder.store, "bob")
    with pytest.raises(grpc.RpcError) as caught:
        request = pb.RetireBotRequest(bot_id=alice_bot)
        ladder.stub.RetireBot(request, metadata=client.auth(bob_token))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "belongs to alice" in (caught.value.details() or "")
    assert ladder.store.bots.bot(alice_bot).status == ACTIVE


def test_an_owner_retires_their_own_bot(ladder: Ladder) -> None:
    bot_id, token = owned_bot(ladder.store, "alice")
    reply = ladder.stub.RetireBot(pb.RetireBotRequest(bot_id=bot_id), metadata=client.auth(token))
    assert reply.status == "retired"


def test_an_admin_may_retire_any_bot(ladder: Ladder) -> None:
    bot_id, _ = owned_bot(ladder.store, "alice")
    _, admin_token = ladder.store.owners.add_owner("root", admin=True)
    request = pb.RetireBotRequest(bot_id=bot_id)
    assert ladder.stub.RetireBot(request, metadata=client.auth(admin_token)).status == "retired"


def test_adding_an_owner_needs_an_admin_token(ladder: Ladder) -> None:
    _, token = ladder.store.owners.add_owner("alice")
    request = pb.AddOwnerRequest(name="mallory")
    call = lambda: ladder.stub.AddOwner(request, metadata=client.auth(token))  # noqa: E731
    assert code_of(call) == grpc.StatusCode.PERMISSION_DENIED


def test_an_admin_adds_an_owner_whose_token_works(ladder: Ladder) -> None:
    _, admin_token = ladder.store.owners.add_owner("root", admin=True)
    request = pb.AddOwnerRequest(name="carol")
    reply = ladder.stub.AddOwner(request, metadata=client.auth(admin_token))
    owner = ladder.store.owners.owner_for_token(reply.token)
    assert owner is not None and owner.name == "carol"


def test_a_submission_is_pending_until_its_validation_match(ladder: Ladder) -> None:
    _, token = ladder.store.owners.add_owner("alice")
    request = pb.SubmitBotRequest(archive=archive.pack_directory(EXAMPLE_BOT))
    reply = ladder.stub.SubmitBot(iter([request]), metadata=client.auth(token))
    assert reply.bots and {b.status for b in reply.bots} == {PENDING}
    queued = ladder.store.matches.matches(state="queued", limit=100)
    assert {m.kind for m in queued} == {VALIDATION}
    assert {m.seats[0] for m in queued} == {b.id for b in reply.bots}


def test_a_refused_archive_names_the_reason(ladder: Ladder) -> None:
    _, token = ladder.store.owners.add_owner("alice")
    request = pb.SubmitBotRequest(archive=b"definitely not a tarball")
    with pytest.raises(grpc.RpcError) as caught:
        ladder.stub.SubmitBot(iter([request]), metadata=client.auth(token))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a tar" in (caught.value.details() or "")


def test_reading_the_leaderboard_needs_no_token(ladder: Ladder) -> None:
    owned_bot(ladder.store, "alice")
    reply = ladder.stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom"))
    assert [row.bot.name for row in reply.boards[0].rows] == ["alice-bot"]


def test_the_health_service_reports_serving(ladder: Ladder) -> None:
    with grpc.insecure_channel(ladder.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="niwa.v1.Ladder"))
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_ladder_service(ladder: Ladder) -> None:
    with grpc.insecure_channel(ladder.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        reply = next(iter(stub.ServerReflectionInfo(iter([request]))))
    names = {s.name for s in reply.list_services_response.service}
    assert "niwa.v1.Ladder" in names


def test_the_server_speaks_tls_with_a_given_certificate(store: Store, tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    grpc_server, port = server.start(
        str(tmp_path / "ladder.db"), None, "localhost:0", tls_cert=cert, tls_key=key
    )
    try:
        channel, stub = client.connect(f"localhost:{port}", tls_ca=cert)
        with channel:
            assert stub.GetLeaderboard(pb.LeaderboardRequest()).boards == []
    finally:
        grpc_server.stop(None)


def test_an_archive_over_grpcs_default_4_mib_gets_through_in_chunks(
    ladder: Ladder, tmp_path: Path
) -> None:
    bot = tmp_path / "big-bot"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "big"\nversion = "1"\ngames = ["blossom"]\ncommand = ["python3", "bot.py"]\n'
    )
    (bot / "weights.bin").write_bytes(os.urandom(6 << 20))  # incompressible
    _, token = ladder.store.owners.add_owner("alice")
    with client.LadderClient(ladder.address, token=token) as owner:
        bots = owner.submit(archive.pack_directory(bot))
    assert [b.name for b in bots] == ["big"]


def test_an_archive_in_one_message_is_refused_for_its_size(ladder: Ladder, tmp_path: Path) -> None:
    _, token = ladder.store.owners.add_owner("alice")
    request = pb.SubmitBotRequest(archive=os.urandom(1 << 20))
    with pytest.raises(grpc.RpcError) as caught:
        ladder.stub.SubmitBot(iter([request]), metadata=client.auth(token))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
