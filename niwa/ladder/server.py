"""Serving the API: the Ladder service, gRPC health and server reflection, TLS optional.

The server is gRPC's asyncio server on an event loop of its own thread, so a stream
(WatchMatches) costs a coroutine, not a thread, and the caller (``niwa ladder serve``,
tests) keeps its own thread. Admission control (``niwa.ladder.admission``) bounds what each
caller may hold at once.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from niwa import engine
from niwa.ladder.admission import MAX_MESSAGE, Admission, ApiLimits, Tokens
from niwa.ladder.call_timer import CallTimer
from niwa.ladder.health import StoreCheck
from niwa.ladder.service import LadderService
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc

SERVICE = pb.DESCRIPTOR.services_by_name["Ladder"].full_name
#: Close a connection that has had no call for this long (watchers keep theirs).
IDLE_CONNECTION_MS = 5 * 60 * 1000
#: How often gRPC health asks the store whether it answers.
HEALTH_CHECK_S = 2.0


class Server:
    """A running API server; :meth:`stop` ends it (like ``grpc.Server.stop``)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._grace: float | None = None
        self._thread: threading.Thread | None = None
        self.admission: Admission | None = None

    def stop(self, grace: float | None = None) -> threading.Event:
        """Stop taking calls, end the running ones after ``grace`` seconds; the returned
        event is set once the server is down."""
        done = threading.Event()
        loop, stopping, thread = self._loop, self._stopping, self._thread
        if loop is None or stopping is None or thread is None or not thread.is_alive():
            done.set()
            return done
        self._grace = grace
        loop.call_soon_threadsafe(stopping.set)

        def join() -> None:
            thread.join()
            done.set()

        threading.Thread(target=join, daemon=True, name="niwa-api-stop").start()
        return done

    async def _main(
        self,
        started: Future[int],
        db_url: str,
        data_dir: Path | None,
        listen: str,
        credentials: grpc.ServerCredentials | None,
        games: list[str],
        limits: ApiLimits,
    ) -> None:
        try:
            service = LadderService(db_url, data_dir, games, limits)
            self.admission = Admission(limits, Tokens(service.owner_for_token))
            server = grpc.aio.server(
                interceptors=[CallTimer(), self.admission],
                maximum_concurrent_rpcs=limits.max_rpcs,
                options=[
                    # Small for every call, so no caller makes the ladder buffer a large
                    # body: archives come in chunks (niwa.ladder.admission.CHUNK).
                    ("grpc.max_receive_message_length", MAX_MESSAGE),
                    ("grpc.max_connection_idle_ms", IDLE_CONNECTION_MS),
                    ("grpc.http2.bdp_probe", 0),
                ],
            )
            pb_grpc.add_LadderServicer_to_server(service, server)  # type: ignore[no-untyped-call]
            health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
            check = StoreCheck(db_url)
            await follow_store(health_servicer, check)
            health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
            reflection.enable_server_reflection(
                (SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
            )
            try:
                if credentials is not None:
                    port = server.add_secure_port(listen, credentials)
                else:
                    port = server.add_insecure_port(listen)
            except RuntimeError:
                port = 0
            if port == 0:
                raise OSError(f"cannot listen on {listen}: is another server using the port?")
            await server.start()
        except BaseException as e:
            started.set_exception(e)
            return
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        started.set_result(port)
        following = asyncio.create_task(_keep_following(health_servicer, check))
        try:
            await self._stopping.wait()
        finally:
            following.cancel()
            await server.stop(self._grace)
            await service.close()


async def follow_store(servicer: Any, check: StoreCheck) -> None:
    """Health says SERVING while the store answers, NOT_SERVING while it does not (a
    ladder whose store is down can answer no call that reads it)."""
    problem = await asyncio.to_thread(check.problem)
    status = health_pb2.HealthCheckResponse
    for name in ("", SERVICE):
        await servicer.set(name, status.NOT_SERVING if problem else status.SERVING)


async def _keep_following(servicer: Any, check: StoreCheck) -> None:
    while True:
        await asyncio.sleep(HEALTH_CHECK_S)
        await follow_store(servicer, check)


def start(
    db_url: str,
    data_dir: Path | None,
    listen: str,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    games: list[str] | None = None,
    limits: ApiLimits | None = None,
) -> tuple[Server, int]:
    """Start serving on ``listen`` (``host:port``, port 0 picks one); return the server
    and the port it got."""
    credentials = None
    if tls_cert is not None or tls_key is not None:
        if tls_cert is None or tls_key is None:
            raise ValueError("TLS needs both --tls-cert and --tls-key")
        credentials = grpc.ssl_server_credentials([(tls_key.read_bytes(), tls_cert.read_bytes())])
    server = Server()
    started: Future[int] = Future()
    main = server._main(
        started, db_url, data_dir, listen, credentials, games or engine.games(),
        limits or ApiLimits(),
    )  # fmt: skip
    thread = threading.Thread(target=asyncio.run, args=(main,), daemon=True, name="niwa-api")
    server._thread = thread
    thread.start()
    port = started.result()
    return server, port
