"""Serving the API: the Ladder service, gRPC health and server reflection, TLS optional."""

from __future__ import annotations

from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

import engine
from ladder import archive
from ladder.service import LadderService
from niwa.v1 import ladder_pb2 as pb
from niwa.v1 import ladder_pb2_grpc as pb_grpc

SERVICE = pb.DESCRIPTOR.services_by_name["Ladder"].full_name
MAX_MESSAGE = archive.DEFAULT_LIMITS.archive_bytes + (1 << 20)


def start(
    db_url: str,
    data_dir: Path | None,
    listen: str,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    threads: int = 16,
    games: list[str] | None = None,
) -> tuple[grpc.Server, int]:
    """Start serving on ``listen`` (``host:port``, port 0 picks one); return the server
    and the port it got."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads),
        # An archive may be up to the archive limit: gRPC's default 4 MiB is too small.
        options=[("grpc.max_receive_message_length", MAX_MESSAGE)],
    )
    pb_grpc.add_LadderServicer_to_server(  # type: ignore[no-untyped-call]
        LadderService(db_url, data_dir, games or engine.games()), server
    )
    health_servicer = health.HealthServicer()
    for name in ("", SERVICE):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    if tls_cert is not None or tls_key is not None:
        if tls_cert is None or tls_key is None:
            raise ValueError("TLS needs both --tls-cert and --tls-key")
        credentials = grpc.ssl_server_credentials(
            [(tls_key.read_bytes(), tls_cert.read_bytes())]
        )
        port = server.add_secure_port(listen, credentials)
    else:
        port = server.add_insecure_port(listen)
    if port == 0:
        raise OSError(f"cannot listen on {listen}: is another server using the port?")
    server.start()
    return server, port
