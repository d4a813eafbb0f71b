"""Talking to a ladder server: a channel, a stub, and the caller's token as metadata."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import grpc

from niwa_proto.v1 import ladder_pb2 as pb
from niwa_proto.v1 import ladder_pb2_grpc as pb_grpc

Metadata = tuple[tuple[str, str], ...]


#: Archives (sent) and replays (received) can pass gRPC's default 4 MiB.
OPTIONS = [
    ("grpc.max_send_message_length", 64 << 20),
    ("grpc.max_receive_message_length", 256 << 20),
]


def connect(address: str, tls_ca: Path | None = None) -> tuple[grpc.Channel, pb_grpc.LadderStub]:
    if tls_ca is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes())
        channel = grpc.secure_channel(address, credentials, options=OPTIONS)
    else:
        channel = grpc.insecure_channel(address, options=OPTIONS)
    return channel, pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]


def auth(token: str | None) -> Metadata:
    return (("authorization", f"Bearer {token}"),) if token else ()


class ReplayMismatch(ValueError):
    """A downloaded replay is not the one the ladder recorded."""


def checked_replay(reply: pb.Replay, match_id: int) -> bytes:
    """The replay's content, only if it is the asked match's and has the SHA-256 the
    ladder recorded when the match finished (sent along with it)."""
    if reply.match_id != match_id:
        raise ReplayMismatch(
            f"asked for the replay of match {match_id}, got match {reply.match_id}'s: not saved"
        )
    if not reply.sha256:
        raise ReplayMismatch(
            f"the ladder sent no SHA-256 with the replay of match {match_id}, so it cannot be "
            "checked: not saved (is the ladder older than this niwa?)"
        )
    digest = hashlib.sha256(reply.content).hexdigest()
    if not hmac.compare_digest(digest, reply.sha256.lower()):
        raise ReplayMismatch(
            f"the replay of match {match_id} does not match its recorded SHA-256 "
            f"({reply.sha256[:16]}, received {digest[:16]}): not saved; download it again"
        )
    return reply.content
