"""The runner's Ray driver, kept in a child process so that losing Ray never kills the
runner.

A Ray driver lives only as long as its connection: when the head (its GCS) is gone for
a minute, or the raylet of the driver's own machine dies, Ray ends the driver's
process at once, from its C++ core, without a Python hook: a runner that was its own
driver died without a log line and without handing its matches back. So the runner
talks to a child (spawned, dying with it) that is the driver and runs the
:class:`niwa.ladder.ray_executor.RayExecutor`; the child's log events come back over the
pipe and are logged by the runner, as if the executor ran in its process.

When the child ends (Ray killed it, or it found the head unreachable for
:data:`HEAD_CHECKS` checks and left), the bridge logs one ``ray_connection_lost``
event and fails every running match with :class:`niwa.ladder.executors.ExecutorLost`; the
runner hands those matches back to the queue and connects again, with backoff,
until the head answers.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import pickle
import signal
import socket
import threading
import time
from collections.abc import Callable, MutableMapping
from concurrent.futures import Future
from multiprocessing.connection import Connection
from typing import Any

import structlog

from niwa.errors import LadderError
from niwa.ladder import logs, metrics
from niwa.ladder.executors import ArchiveReader, ExecutorLost
from niwa.ladder.records import Finished
from niwa.ladder.worker import Job
from niwa.referee.cgroups import LimitsUnavailable
from niwa.referee.pool import die_with

#: Seconds between the child's checks that the head's GCS port accepts connections.
HEAD_CHECK_S = 1.0
#: Failed checks in a row after which the child calls the head lost and leaves.
HEAD_CHECKS = 3
#: Seconds between the runner's calls of ``waiting`` while the child connects.
WAITING_S = 1.0
#: Seconds the child may take to join the cluster (its start and Ray's import included)
#: before the runner gives up on it: ``ray.init`` waits for ever on a port that takes
#: connections and never answers as a Ray head.
JOIN_S = 180.0


class TokenRefused(LadderError, PermissionError, ConnectionError):
    """The cluster refused this runner's token (or its lack of one): not transient."""


class RayBridge:
    """An :class:`niwa.ladder.executors.Executor` whose Ray driver is a child process."""

    def __init__(
        self, address: str, log_level: str, archive_bytes: ArchiveReader, node: str,
        version: str, waiting: Callable[[], None] | None = None,
    ) -> None:  # fmt: skip
        """Start the driver and wait until it has joined the cluster (or failed to),
        calling ``waiting`` about every :data:`WAITING_S` meanwhile: joining takes
        seconds (more on a busy machine), and the runner renews its lease there. What
        ``waiting`` raises ends the driver and comes out of here, as a ConnectionError
        does after :data:`JOIN_S` without joining."""
        self.log = structlog.get_logger("niwa.ladder").bind(node=node)
        self._archive_bytes = archive_bytes
        self._sent: set[str] = set()  # archive hashes the child has
        self._futures: dict[int, Future[Finished]] = {}  # match id -> its future
        self._lock = threading.Lock()  # _futures, _lost, sends to the child
        self._cpus = 0
        self._nodes_lost = 0.0  # the child's count of lost nodes, as last reported
        self._lost: Exception | None = None
        self._connected = threading.Event()
        self._closing = False
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_child, args=(child, os.getpid(), address, log_level, node, version),
            name="niwa-ray-driver", daemon=True,
        )  # fmt: skip
        self._process.start()
        child.close()
        self._reader = threading.Thread(target=self._read, name="ray-bridge", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + JOIN_S
        try:  # until the child connected, or failed to (then _lost says why)
            while not self._connected.wait(WAITING_S):
                if waiting is not None:
                    waiting()
                if time.monotonic() > deadline:
                    raise ConnectionError(
                        f"the Ray cluster at {address or 'this machine'} did not let this"
                        f" runner join within {JOIN_S:.0f} s: check that it is the head's"
                        f" address (ray status --address {address or 'auto'})"
                    )
        except BaseException:
            self._closing = True  # not a lost connection: we gave up on it
            self._process.kill()
            self._process.join()
            raise
        if self._lost is not None:
            self._process.join()
            raise self._lost

    @property
    def slots(self) -> int:
        if self._lost is not None:
            raise self._lost
        return max(1, self._cpus)

    def submit(self, job: Job) -> Future[Finished]:
        future: Future[Finished] = Future()
        future.set_running_or_notify_cancel()
        with self._lock:
            archives = {d: self._archive_bytes(d) for d in set(job.archives) - self._sent if d}
            if self._lost is not None:
                raise self._lost
            self._futures[job.match_id] = future
            self._send(("submit", job, archives))
            self._sent |= archives.keys()
        return future

    def cancel(self) -> None:
        with self._lock, contextlib.suppress(OSError):
            self._send(("cancel",))

    def shutdown(self, wait: bool) -> None:
        self._closing = True  # the child's end is no loss then
        with self._lock, contextlib.suppress(OSError):
            self._send(("shutdown", wait))
        self._process.join(None if wait else 30)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    def _send(self, message: tuple[Any, ...]) -> None:
        with contextlib.suppress(OSError, EOFError):  # the child is gone: the reader
            self._conn.send(message)  # fails the futures and says why

    def _read(self) -> None:
        """Runs on its own thread: the child's messages, until it ends."""
        why = ""
        while True:
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                break
            kind = message[0]
            if kind == "log":
                _, level, event = message
                getattr(self.log, level)(**event)
            elif kind == "connected":
                self._cpus = message[1]
                self._gauges(message[2])
                self._connected.set()
            elif kind == "slots":
                self._cpus = message[1]
                self._gauges(message[2])
            elif kind == "ran":
                _, match_id, result, error = message
                with self._lock:
                    future = self._futures.pop(match_id, None)
                if future is not None:
                    if error is None:
                        future.set_result(result)
                    else:
                        future.set_exception(error)
            elif kind == "unfit":  # no node may play: the runner stops, saying why
                self._lost = LimitsUnavailable(message[1])
                self._connected.set()
            elif kind in ("refused", "unreachable"):
                why = message[1]
                if not self._connected.is_set():  # never connected: the runner stops
                    error = TokenRefused(why) if kind == "refused" else ConnectionError(why)
                    self._lost = error
                    self._connected.set()
                    return
        self._process.join(5)
        if self._closing or isinstance(self._lost, LimitsUnavailable):
            return
        self._lose(why or f"the Ray driver process ended (exit code {self._process.exitcode})")

    def _gauges(self, seen: tuple[float, float, float]) -> None:
        """The child's Ray node metrics, in this process's registry (the one served)."""
        nodes, refused, lost = seen
        metrics.RAY_NODES.set(nodes)
        metrics.RAY_NODES_REFUSED.set(refused)
        if lost > self._nodes_lost:
            metrics.RAY_NODES_LOST.inc(lost - self._nodes_lost)
        self._nodes_lost = lost

    def _lose(self, why: str) -> None:
        """The connection is gone: fail what runs (the runner hands it back), once."""
        with self._lock:
            self._lost = lost = ExecutorLost(why)
            futures, self._futures = list(self._futures.values()), {}
        self._connected.set()
        self.log.error(
            "ray_connection_lost", reason=why, matches=len(futures),
            effect="its running matches go back to the queue; connecting again",
        )  # fmt: skip
        for future in futures:
            future.set_exception(lost)


# -- in the child ---------------------------------------------------------------------


def _child(
    conn: Connection, runner: int, address: str, log_level: str, node: str, version: str
) -> None:
    """The driver: connect, then play what the runner sends until told to stop."""
    die_with(runner)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C and SIGTERM are the runner's
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sending = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with sending:
            conn.send(message)

    _forward_logs(send)
    logs.route_libraries()
    from niwa.ladder import ray_executor  # imports ray: only here

    logs.adopt("ray")  # Ray's warnings as events, forwarded like the rest

    archives: dict[str, bytes] = {}
    if address and not _answers(address):  # ray.init would wait for it a long while
        send(("unreachable", f"no Ray cluster answers at {address}: start its head "
                             "(ray start --head) or pass --ray-address"))  # fmt: skip
        return
    try:
        executor = ray_executor.RayExecutor(
            address, log_level, archives.__getitem__, node, version=version
        )
    except ConnectionError as e:
        token = "wants its token" in str(e)
        send(("refused" if token else "unreachable", str(e)))
        return
    except ray_executor.NoNodeFit as e:
        send(("unfit", str(e)))
        return
    except Exception as e:  # Ray's own failure
        send(("unreachable", f"{type(e).__name__}: {e}"))
        return
    send(("connected", executor.slots, _gauges()))
    gcs = ray_executor.gcs_address()
    stop = threading.Event()
    threading.Thread(target=_watch_head, args=(gcs, send, stop), daemon=True).start()
    threading.Thread(target=_report_slots, args=(executor, send, stop), daemon=True).start()
    while True:
        message = conn.recv()
        if message[0] == "submit":
            _, job, fresh = message
            archives.update(fresh)
            future = executor.submit(job)
            future.add_done_callback(functools.partial(_report, send, job.match_id))
        elif message[0] == "cancel":
            executor.cancel()
        elif message[0] == "shutdown":
            stop.set()
            executor.shutdown(wait=message[1])
            return


def _gauges() -> tuple[float, float, float]:
    """This child's Ray node metrics: alive, refused, lost (the runner serves them)."""
    found = (metrics.RAY_NODES, metrics.RAY_NODES_REFUSED, metrics.RAY_NODES_LOST)
    values = [next(iter(m.collect())).samples[0].value for m in found]
    return values[0], values[1], values[2]


def _report(send: Callable[[tuple[Any, ...]], None], match_id: int, done: Future[Finished]) -> None:
    send(_outcome(match_id, done))


def _outcome(match_id: int, done: Future[Finished]) -> tuple[Any, ...]:
    error = done.exception()
    if error is None:
        return ("ran", match_id, done.result(), None)
    try:
        pickle.dumps(error)
    except Exception:  # an exception Ray built that does not travel: say what it was
        error = RuntimeError(f"{type(error).__name__}: {error}")
    return ("ran", match_id, None, error)


def _forward_logs(send: Any) -> None:
    """Every log event of this process goes to the runner, at every level: the runner's
    own configuration decides what is kept (a filter here would hide from it, and from
    a test's capture, the events its level drops)."""

    def forward(logger: Any, method: str, event: MutableMapping[str, Any]) -> Any:
        level = event.pop("level", method)
        send(("log", level if level in ("debug", "info", "warning", "error") else "info", event))
        raise structlog.DropEvent

    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                    forward],
        wrapper_class=structlog.BoundLogger,
    )  # fmt: skip


def _answers(address: str) -> bool:
    """Whether something accepts connections at ``host:port``."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=HEAD_CHECK_S):
            return True
    except (OSError, ValueError):
        return False


def _watch_head(gcs: str, send: Any, stop: threading.Event) -> None:
    """Leave once the head's GCS port refused :data:`HEAD_CHECKS` checks in a row: Ray
    would otherwise keep this driver hanging, then end it without a word."""
    failed = 0
    while not stop.wait(HEAD_CHECK_S):
        failed = 0 if _answers(gcs) else failed + 1
        if failed >= HEAD_CHECKS:
            with contextlib.suppress(OSError):
                send(("unreachable", f"the Ray head at {gcs} does not answer"))
            os._exit(0)


def _report_slots(executor: Any, send: Any, stop: threading.Event) -> None:
    """Tell the runner how many matches the cluster can play (and let the executor log
    joined, lost and refused nodes), every survey."""
    from niwa.ladder.ray_executor import SURVEY_S, NoNodeFit

    while not stop.wait(SURVEY_S):
        try:
            send(("slots", executor.slots, _gauges()))
        except NoNodeFit as e:
            send(("unfit", str(e)))
            os._exit(0)
