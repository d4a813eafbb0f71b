"""Talking to a ladder server: a channel, a stub, and the caller's token as metadata."""

from __future__ import annotations

from pathlib import Path

import grpc

from niwa.v1 import ladder_pb2_grpc as pb_grpc

Metadata = tuple[tuple[str, str], ...]


def connect(address: str, tls_ca: Path | None = None) -> tuple[grpc.Channel, pb_grpc.LadderStub]:
    if tls_ca is not None:
        channel = grpc.secure_channel(
            address, grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes())
        )
    else:
        channel = grpc.insecure_channel(address)
    return channel, pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]


def auth(token: str | None) -> Metadata:
    return (("authorization", f"Bearer {token}"),) if token else ()
