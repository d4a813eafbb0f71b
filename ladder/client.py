"""Talking to a ladder server: a channel, a stub, and the caller's token as metadata."""

from __future__ import annotations

from pathlib import Path

import grpc

from niwa.v1 import ladder_pb2_grpc as pb_grpc

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
