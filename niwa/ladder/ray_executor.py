"""Matches on a Ray cluster: each match is one Ray task, on whichever node has a free CPU.

The task runs the referee and its sandboxed bots on the node where it lands
(bubblewrap and cgroups there, as in a local worker), and returns the
:class:`niwa.ladder.store.Finished` with the replay and the bots' logs; the executor puts
those at the job's paths on the runner's disk before the runner sees the result. The
runner stays the only writer of results, so the store's commit rules keep every match
counted once: a task whose node dies is re-run by Ray (``max_retries``), and a result
that arrives for a match no longer running is ignored by the store.

Bot archives travel by content hash through Ray's object store: the runner puts each
archive once (``ray.put``) and the task, only on a node that has not unpacked that hash
yet, fetches it and unpacks it (in a child process, under the usual limits) into a
content-addressed folder that later matches on that node reuse (a cache private to
the node's user, each folder checked on every use: :mod:`niwa.ladder.bot_cache`). Nodes
never need the store's database, nor its credentials.

A node that cannot play safely refuses the match (:class:`NodeUnfit`: no bubblewrap,
another niwa version, other rules for the game, cgroup limits unavailable, a bot cache
others could write in); the executor logs why, never schedules there again, and re-runs
the match elsewhere.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import ray
import structlog
from ray.exceptions import AuthenticationError, RayTaskError

from niwa import engine
from niwa.errors import LadderError
from niwa.ladder import bot_cache, logs, metrics
from niwa.ladder.executors import ArchiveReader
from niwa.ladder.store import Finished
from niwa.ladder.worker import Job, run_job
from niwa.referee.cgroups import LimitsUnavailable

#: Re-runs of a task whose worker or node died (Ray's own retries, before the store's).
TASK_RETRIES = 3
#: Seconds between two looks at the cluster's nodes (joined, lost, refused).
SURVEY_S = 2.0
#: Times one match is handed on after nodes refused it.
REFUSALS_KEPT = 8
#: How the logs name a node; NIWA_NODE (set where ``ray start`` runs) overrides.
NODE_ENV = "NIWA_NODE"
#: Ray node labels (``ray start --labels niwa-version=0.1.0,niwa-node=play-1``): the niwa
#: a node runs (tasks go only to nodes of the runner's), and its name in the logs.
VERSION_LABEL = "niwa-version"
NAME_LABEL = "niwa-node"


def niwa_version() -> str:
    return importlib.metadata.version("niwa")


class NodeUnfit(LadderError):
    """This node must not play matches; ``reason`` says why (and how to fix it)."""

    def __init__(self, node: str, node_id: str, reason: str) -> None:
        super().__init__(f"node {node} refuses matches: {reason}")
        self.node, self.node_id, self.reason = node, node_id, reason

    def __reduce__(self) -> tuple[Any, ...]:  # pickled back to the runner whole
        return (NodeUnfit, (self.node, self.node_id, self.reason))


class NoNodeFit(LimitsUnavailable):
    """Every node of the cluster refuses matches (the runner stops, as when its own
    machine cannot enforce a bot's limits)."""

    def __init__(self, reasons: Iterable[str]) -> None:
        self.reasons = sorted(set(reasons))
        super().__init__(f"no node of the Ray cluster may play: {'; '.join(self.reasons)}")

    def __reduce__(self) -> tuple[Any, ...]:  # pickled to the runner whole
        return (NoNodeFit, (self.reasons,))


@dataclass(frozen=True)
class Played:
    """What a task sends back: the result, and the files the runner keeps."""

    finished: Finished
    replay: bytes
    logs: dict[str, bytes]  # path under the job's log folder -> content
    node: str


@dataclass(frozen=True)
class Expected:
    """What the runner's niwa would play the job with; a node must match it."""

    niwa: str
    rules: str  # the game's rules VERSION
    log_level: str


# -- on the node ---------------------------------------------------------------------


def node_label(node_id: str, labels: dict[str, str] | None = None) -> str:
    """A node's name in the logs: NIWA_NODE where it runs, else its NAME_LABEL."""
    named = os.environ.get(NODE_ENV) or (labels or {}).get(NAME_LABEL)
    return named or f"{socket.gethostname()}:{node_id[:8]}"


def version_label(version: str) -> str:
    """``version`` as a Ray label value may spell it (letters, digits, ``-_.``)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", version)[:63].strip("-_.")


def upgrade_step(version: str) -> str:
    """How to bring a node to the runner's niwa ``version``."""
    return (
        f"upgrade it: pip install 'niwa[ray]=={version}', then ray stop and ray start "
        f"again with --labels {VERSION_LABEL}={version_label(version)} (docs/deploy.md, Ray)"
    )


def version_problem(labels: dict[str, str], runner: str) -> str:
    """Why a node whose labels are ``labels`` gets no match of a runner of niwa
    ``runner`` ("" if it may): it advertises another version, or none."""
    have = labels.get(VERSION_LABEL)
    if have == version_label(runner):
        return ""
    if have is None:
        return f"it advertises no niwa version (label {VERSION_LABEL}): " + upgrade_step(runner)
    return f"it runs niwa {have}, the runner {runner}: " + upgrade_step(runner)


def node_problem(game: str, expected: Expected) -> str:
    """Why this node must not play ``game`` for the runner ("" if it may)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed here (apt-get install bubblewrap)"
    here = niwa_version()
    if here != expected.niwa:
        return f"niwa {here} is installed here, the runner has {expected.niwa}: " + (
            upgrade_step(expected.niwa)
        )
    try:
        rules = engine.load(game).info.version
    except KeyError:
        return f"the game {game!r} is not installed here"
    if rules != expected.rules:
        return f"{game}'s rules are version {rules} here, the runner's are {expected.rules}"
    return bot_cache.cache_problem(bot_cache.cache_dir())


def cached_bot(digest: str, ref: Any) -> Path:
    """The bot unpacked from archive ``digest`` on this node: fetched once per node,
    checked on every use (:mod:`niwa.ladder.bot_cache`)."""
    return bot_cache.cached_bot(bot_cache.cache_dir(), digest, lambda: bytes(ray.get(ref)))


_configured = threading.Lock()


def _flat(labels: Any) -> dict[str, str]:
    """Ray's node labels as one value each (some of its calls give lists)."""
    return {str(k): str(v[0] if isinstance(v, list) and v else v) for k, v in dict(labels).items()}


def play(job: Job, expected: Expected, archives: list[tuple[str, Any]]) -> Played:
    """The Ray task: play ``job`` here, or raise :class:`NodeUnfit`. ``archives`` (hash,
    object ref) sits in a list so Ray hands the refs over unfetched."""
    context = ray.get_runtime_context()
    node_id = context.get_node_id()
    node = node_label(node_id, _flat(context.get_node_labels()))
    problem = node_problem(job.game, expected)
    if problem:
        raise NodeUnfit(node, node_id, problem)
    if _configured.acquire(blocking=False):  # once per worker process
        logs.configure(expected.log_level)
    structlog.contextvars.bind_contextvars(node=node)  # the referee's logs name this node
    refs = dict(archives)
    bots = tuple(
        str(cached_bot(digest, refs[digest])) if digest else bot
        for bot, digest in zip(job.bots, job.archives or ("",) * len(job.bots), strict=True)
    )
    with tempfile.TemporaryDirectory(prefix="niwa-match-") as tmp:
        here = replace(
            job, bots=bots, replay_path=f"{tmp}/replay.jsonl", log_dir=f"{tmp}/logs"
        )
        try:
            finished = run_job(here)
        except LimitsUnavailable as e:
            raise NodeUnfit(node, node_id, str(e)) from None
        log_dir = Path(here.log_dir)
        kept = {
            str(p.relative_to(log_dir)): p.read_bytes() for p in log_dir.rglob("*") if p.is_file()
        }
        return Played(finished, Path(here.replay_path).read_bytes(), kept, node)


# -- on the runner -------------------------------------------------------------------


def connect_problem(address: str, error: Exception) -> str:
    """Why this process could not join the Ray cluster at ``address``, and the fix."""
    where = address or "this machine"
    # Ray reports a refused token as a failed connection; the cause names it.
    if isinstance(error, AuthenticationError) or "InvalidAuthToken" in str(error.__cause__):
        return (
            f"the Ray cluster at {where} wants its token and this process has none or "
            "another: set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH=<the cluster's token "
            "file> where it runs (docs/deploy.md, Ray)"
        )
    return (
        f"no Ray cluster at {where}: start one (ray start --head) or pass --ray-address ({error})"
    )


class RayExecutor:
    """Submits each job as a Ray task (one CPU); see the module's doc."""

    def __init__(
        self, address: str, log_level: str, archive_bytes: ArchiveReader, node: str = "",
        version: str = "",
    ) -> None:  # fmt: skip
        self.log = structlog.get_logger("niwa.ladder").bind(node=node)
        self._archive_bytes = archive_bytes
        self._log_level = log_level
        self._version = version or niwa_version()  # the runner's
        _connect(address)
        self._task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(
            play
        )
        self._refs: dict[str, Any] = {}  # archive hash -> object ref, put once
        self._unfit: dict[str, str] = {}  # node id -> "node: why it refuses"
        self._lock = threading.Lock()  # the dicts above and _running: Ray's threads too
        self._running: dict[int, Any] = {}  # match id -> object ref of its task
        self._seen: dict[str, str] = {}  # node id -> name, of every node met alive
        self._lost: set[str] = set()  # node ids seen dead since
        self._cpus = 0  # the CPUs of the nodes that may play, at the last survey
        self._surveyed = 0.0  # time.monotonic() of the last survey
        try:
            self._survey()
        except NoNodeFit:
            ray.shutdown()  # the runner stops; a later runner in this process connects anew
            raise
        self.log.info("ray_connected", address=address or "auto", cpus=self._cpus)

    @property
    def slots(self) -> int:
        """The CPUs of the live nodes that may play (Ray's view of what is free lags
        behind); a new node, a lost one or one of another version is logged here."""
        if time.monotonic() - self._surveyed >= SURVEY_S:
            self._survey()
        return max(1, self._cpus)

    def _survey(self) -> None:
        """Log each node met alive (``ray_node_joined``, or ``node_refused`` if it runs
        another niwa) and each one gone (``ray_node_lost``), once each."""
        self._surveyed = time.monotonic()
        nodes = {n["NodeID"]: n for n in ray.nodes()}
        alive = {i: n for i, n in nodes.items() if n.get("Alive")}
        metrics.RAY_NODES.set(len(alive))
        for node_id, n in alive.items():
            if node_id in self._seen:
                continue
            labels = _flat(n.get("Labels") or {})
            name = self._seen[node_id] = labels.get(NAME_LABEL) or (
                f"{n.get('NodeManagerHostname', '?')}:{node_id[:8]}"
            )
            problem = version_problem(labels, self._version)
            if problem:
                self._refuse(node_id, name, problem)
            else:
                cpus = int(n.get("Resources", {}).get("CPU", 0))
                self.log.info("ray_node_joined", ray_node=name, cpus=cpus)
        for node_id in self._seen.keys() - alive.keys() - self._lost:
            self._lost.add(node_id)
            metrics.RAY_NODES_LOST.inc()
            self.log.error(
                "ray_node_lost", ray_node=self._seen[node_id],
                effect="its running matches are played again on other nodes",
            )  # fmt: skip
        with self._lock:
            fit = alive.keys() - self._unfit.keys()
        self._cpus = sum(int(alive[i].get("Resources", {}).get("CPU", 0)) for i in fit)
        if alive and not fit:
            with self._lock:
                raise NoNodeFit(self._unfit[i] for i in alive)

    def _refuse(self, node_id: str, name: str, reason: str) -> bool:
        """Send nothing more to this node; True the first time it is refused."""
        with self._lock:
            new = node_id not in self._unfit
            self._unfit[node_id] = f"{name}: {reason}"
            metrics.RAY_NODES_REFUSED.set(len(self._unfit))
        if new:
            self.log.error(
                "node_refused", ray_node=name, reason=reason,
                effect="no more matches are sent there",
            )  # fmt: skip
        return new

    def submit(self, job: Job) -> Future[Finished]:
        outer: Future[Finished] = Future()
        outer.set_running_or_notify_cancel()
        self._launch(job, outer, refusals=0)
        return outer

    def _launch(self, job: Job, outer: Future[Finished], refusals: int) -> None:
        expected = Expected(self._version, engine.load(job.game).info.version, self._log_level)
        with self._lock:
            for digest in job.archives:
                if digest and digest not in self._refs:
                    self._refs[digest] = ray.put(self._archive_bytes(digest))
            archives = [(d, self._refs[d]) for d in set(job.archives) if d]
            # only nodes that say they run this niwa (a rolling upgrade has both kinds)
            selector = {VERSION_LABEL: version_label(self._version)}
            if self._unfit:
                selector["ray.io/node-id"] = f"!in({','.join(self._unfit)})"
            ref = self._task.options(label_selector=selector).remote(job, expected, archives)
            self._running[job.match_id] = ref
        ref.future().add_done_callback(
            lambda done: self._landed(job, outer, refusals, done)
        )  # fmt: skip

    def _landed(
        self, job: Job, outer: Future[Finished], refusals: int, done: Future[Played]
    ) -> None:
        """Runs on a Ray thread when the task ends: deliver its files and result."""
        with self._lock:
            self._running.pop(job.match_id, None)
        error = done.exception()
        cause = error.cause if isinstance(error, RayTaskError) else error
        if isinstance(cause, NodeUnfit):
            self._refused(job, outer, refusals, cause)
            return
        if cause is not None:
            outer.set_exception(cause)
            return
        played = done.result()
        try:
            self._deliver(job, played)
        except OSError as e:
            outer.set_exception(e)
            return
        self.log.info("match_ran", match=job.match_id, game=job.game, ran_on=played.node)
        outer.set_result(played.finished)

    def _refused(
        self, job: Job, outer: Future[Finished], refusals: int, unfit: NodeUnfit
    ) -> None:
        self._refuse(unfit.node_id, unfit.node, unfit.reason)
        alive = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
        with self._lock:
            refusing = dict(self._unfit)
        if refusals >= REFUSALS_KEPT or alive <= refusing.keys():
            # no node may play: the runner hands the match back and stops, saying why
            outer.set_exception(NoNodeFit(refusing.values()))
            return
        self._launch(job, outer, refusals + 1)

    @staticmethod
    def _deliver(job: Job, played: Played) -> None:
        """Put the replay (complete, by a rename) and the logs at the job's paths."""
        final = Path(job.replay_path)
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(f"{final.name}.{os.getpid()}.part")
        partial.write_bytes(played.replay)
        os.replace(partial, final)
        log_dir = Path(job.log_dir)
        for name, data in played.logs.items():
            path = log_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)

    def cancel(self) -> None:
        """Kill the running tasks' workers (and so their bots): a stopping runner hands
        their matches back, and their results would be ignored anyway."""
        with self._lock:
            running = list(self._running.values())
        for ref in running:
            with contextlib.suppress(Exception):  # one that just ended
                ray.cancel(ref, force=True)

    def shutdown(self, wait: bool) -> None:
        with self._lock:
            running = list(self._running.values())
        if wait and running:
            ray.wait(running, num_returns=len(running))
        elif not wait:
            self.cancel()
        ray.shutdown()


def gcs_address() -> str:
    """The connected cluster's GCS (head) address, ``host:port``."""
    return str(ray.get_runtime_context().gcs_address)


def _connect(address: str) -> None:
    """Join the cluster as a driver, keeping this process's own SIGTERM and SIGINT
    handlers: ``ray.init`` puts in one that exits at once, without handing the lease
    or the running matches over."""
    kept = {}
    if threading.current_thread() is threading.main_thread():
        kept = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        ray.init(
            address=address or "auto", namespace="niwa", log_to_driver=False,
            configure_logging=False,
        )  # fmt: skip
    except (ConnectionError, AuthenticationError) as e:
        raise ConnectionError(connect_problem(address, e)) from None
    finally:
        for signum, handler in kept.items():
            if handler is not None:
                signal.signal(signum, handler)
