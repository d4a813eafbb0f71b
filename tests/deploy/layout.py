"""The layout docs/deploy.md describes, stood up on one machine with real servers: a
PostgreSQL server, a two-node Ray cluster with token authentication, two runners
(``niwa ladder serve --executor ray``: a leader, then a standby) and a web front
(``niwa ladder web``). Each niwa process has its own ``--data`` folder, its own working
directory and its own HOME; a runner's working directory holds a ``bots/`` folder, as an
operator's does who runs it in its data folder.

Every process starts in a process group of its own and is stopped by it (SIGTERM, then
SIGKILL), the Ray nodes by their ``ray start`` groups (``ray stop`` would stop every Ray
on the machine), so nothing else on the machine is touched and nothing is left behind.
:meth:`Layout.where` names every log, for a failed check to print.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from niwa.ladder import submission
from niwa.ladder.store import ACTIVE, Store
from tests import postgres
from tests.ladder.ray_cluster import Cluster
from tests.ladder.serving import children, printed_address
from tests.polling import PATIENCE_S, wait_for
from tests.postgres import Server

#: The built-ins the runners play from the start (rated, blossom): matches to look at.
BUILTINS = ("random", "greedy")
GAME = "blossom"
#: A runner's lease (seconds): short, so a standby takes over soon after the leader died.
LEASE_S = 10.0
#: Starting Ray and a first match on it is slow on a busy machine.
SLOW_S = 600.0


def niwa_command() -> str:
    """The ``niwa`` an operator runs (the console script: unlike ``python -m``, it does
    not put the working directory on the import path)."""
    return str(Path(sys.executable).with_name("niwa"))


@dataclass
class Process:
    """One niwa process of the layout."""

    name: str
    proc: subprocess.Popen[str]
    address: str  # what it printed it listens on
    data: Path  # its --data folder
    log: Path  # its stderr
    events_file: Path | None = None  # its --log-file (JSON events), for the runners
    http: str = ""  # a runner's health and metrics listener (--http), as a URL

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        """Its JSON log events so far (only those called ``name``)."""
        source = self.events_file or self.log
        found = []
        for line in source.read_text().splitlines() if source.exists() else ():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    found.append(json.loads(line))
        return [e for e in found if name is None or e.get("event") == name]

    def stop(self) -> None:
        """SIGTERM its process group; SIGKILL it if it has not ended after a while;
        return once no process of the group is left."""
        group = self.proc.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):  # then SIGKILL
            self.proc.wait(timeout=PATIENCE_S)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        self.proc.wait(timeout=PATIENCE_S)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        wait_for(f"{self.name}'s processes to end", lambda: not group_alive(group))


def _process_table() -> dict[int, tuple[int, str]]:
    """Every live process of the machine: pid: (process group, command line)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "Z":  # a zombie has ended; only its parent's wait is due
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
                    table[int(entry.name)] = (int(fields[2]), command.decode(errors="replace"))
    return table


def still_running(processes: dict[int, str]) -> dict[int, str]:
    """Those of ``processes`` that still run (the same pid with the same command line)."""
    table = _process_table()
    return {pid: cmd for pid, cmd in processes.items() if table.get(pid, (0, ""))[1] == cmd}


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@dataclass
class Layout:
    root: Path
    matches: int | None = None  # --matches for each runner (None: play on)
    postgres: Server | None = None
    cluster: Cluster | None = None
    url: str = ""
    runners: list[Process] = field(default_factory=list)  # the leader first
    web: Process | None = None
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    # Starting and stopping -----------------------------------------------------------

    def start(self) -> None:
        """Stand everything up, in the order an operator would; on any failure stop
        what was started and raise saying where the logs are."""
        try:
            self._start()
        except BaseException as e:
            self.stop()
            raise RuntimeError(f"the layout did not start: {e}\n{self.where()}") from e

    def _start(self) -> None:
        self.postgres = self._stack.enter_context(postgres.running())
        self.url = self.postgres.database()
        self._seed_store()
        # Ray's sockets live under its temp dir, whose path must stay short (107 bytes)
        ray_root = Path(tempfile.mkdtemp(prefix="niwa-ray-"))
        self._stack.callback(shutil.rmtree, ray_root, ignore_errors=True)
        self.cluster = Cluster(ray_root)
        self._stack.callback(self.cluster.stop)
        self.cluster.start()
        for name, event in (("leader", "runner_leading"), ("standby", "runner_standby")):
            runner = self._start_runner(name)
            wait_for(f"the {name}'s {event}", partial(runner.events, event), SLOW_S)
        self._start_web()

    def stop(self) -> None:
        """Stop every process (the web front, the runners, Ray, PostgreSQL), each by
        its own process group; the folders stay for the logs."""
        for process in [*([self.web] if self.web else []), *reversed(self.runners)]:
            with contextlib.suppress(Exception):  # the others still have to stop
                process.stop()
        self._stack.close()

    def folder(self, *parts: str) -> Path:
        path = self.root.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _seed_store(self) -> None:
        """The store made, with the built-ins active: matches from the first second."""
        store = Store.open(self.url, self.folder("setup"))
        try:
            for name in BUILTINS:
                submission.builtin_bot(store, name, GAME, ACTIVE)
        finally:
            store.close()

    def _env(self, name: str) -> dict[str, str]:
        """A niwa process's environment: its own HOME, no RAY_* of the caller's, the
        cluster's token."""
        assert self.cluster is not None
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        return {**inherited, **self.cluster.auth_env(), "HOME": str(self.folder(name, "home")),
                "PYTHONUNBUFFERED": "1"}  # fmt: skip

    def _spawn(self, name: str, argv: list[str], cwd: Path) -> tuple[subprocess.Popen[str], Path]:
        log = self.root / name / "stderr.log"
        with log.open("a") as err:
            proc = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=err, text=True, cwd=cwd,
                env=self._env(name), start_new_session=True,
            )  # fmt: skip
        return proc, log

    def _start_runner(self, name: str) -> Process:
        assert self.cluster is not None
        data, work = self.folder(name, "data"), self.folder(name, "work")
        (work / "bots").mkdir(exist_ok=True)  # as in a data folder, where bots are unpacked
        events = self.root / name / "events.jsonl"
        argv = [
            niwa_command(), "ladder", "serve", "--db", self.url, "--data", str(data),
            "--listen", "127.0.0.1:0", "--executor", "ray", "--ray-address",
            self.cluster.address, "--node", name, "--lease", str(LEASE_S),
            "--log-level", "info", "--log-file", str(events), "--game", GAME,
            "--http", "127.0.0.1:0",
            *(["--matches", str(self.matches)] if self.matches is not None else []),
        ]  # fmt: skip
        proc, log = self._spawn(name, argv, work)
        process = Process(name, proc, "", data, log, events)
        self.runners.append(process)  # stopped with the others even if it does not start
        process.address = printed_address(proc, r"serving on (\S+)", log)
        process.http = printed_address(proc, r"http on (\S+)", log)
        return process

    def _start_web(self) -> Process:
        data = self.folder("web", "data")
        argv = [niwa_command(), "ladder", "web", "--db", self.url, "--data", str(data),
                "--listen", "127.0.0.1:0"]  # fmt: skip
        proc, log = self._spawn("web", argv, data)
        process = Process("web", proc, "", data, log)
        self.web = process  # stopped with the others even if it does not start
        process.address = printed_address(proc, r"web on (http://\S+)", log)
        return process

    # Looking at it ----------------------------------------------------------------------

    @property
    def leader(self) -> Process:
        return self.runners[0]

    @property
    def standby(self) -> Process:
        return self.runners[1]

    def user(self, name: str, admin: bool = False) -> str:
        """A new owner (``niwa ladder user add`` on the store); its token."""
        argv = [niwa_command(), "ladder", "user", "add", name, "--db", self.url,
                "--data", str(self.folder("setup")), *(["--admin"] if admin else [])]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PATIENCE_S,
                              check=False, env=self._env("setup"))  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"niwa ladder user add failed: {done.stderr}")
        return done.stdout.strip().splitlines()[-1]

    def store(self) -> Store:
        """A connection to the layout's store (the caller closes it)."""
        return Store.open(self.url, self.folder("setup"), create=False)

    def lease_holder(self) -> str:
        """The runner holding an unexpired lease ("" if none does)."""
        store = self.store()
        try:
            holder = store.db.scalar("SELECT holder FROM leases WHERE expires_at > {now}")
        finally:
            store.close()
        return str(holder or "")

    def processes(self) -> dict[int, str]:
        """Every live process of the layout (pid: command line): the niwa processes'
        and Ray's process groups, the PostgreSQL server and all their descendants."""
        groups = {p.proc.pid for p in [*self.runners, *([self.web] if self.web else [])]}
        groups |= set(self.cluster.groups if self.cluster else ())
        table = _process_table()
        roots = {pid for pid, (group, _) in table.items() if group in groups}
        if self.postgres is not None:
            with contextlib.suppress(OSError, ValueError):
                pid_file = self.postgres.data / "postmaster.pid"
                roots.add(int(pid_file.read_text().split()[0]))
        found = set(roots)
        for pid in roots:
            found |= children(pid)
        return {pid: table[pid][1] for pid in found if pid in table}

    def where(self) -> str:
        """Where every log of the layout is."""
        lines = [f"the layout's folders and logs are under {self.root}:"]
        if self.postgres is not None:
            lines.append(f"  postgresql: {self.postgres.root / 'server.log'}")
        if self.cluster is not None:
            lines.append(f"  ray: {self.cluster.ray_dir / 'session_latest' / 'logs'}")
        for process in [*self.runners, *([self.web] if self.web else [])]:
            logs = [process.log, *([process.events_file] if process.events_file else [])]
            lines.append(f"  {process.name}: " + ", ".join(map(str, logs)))
        return "\n".join(lines)


@contextlib.contextmanager
def standing(root: Path, matches: int | None = None) -> Iterator[Layout]:
    """The layout under ``root``, running inside; everything stopped after."""
    layout = Layout(root, matches)
    layout.start()
    try:
        yield layout
    finally:
        layout.stop()


def done_ids(layout: Layout) -> list[int]:
    """The finished matches' ids, oldest first (from the store)."""
    store = layout.store()
    try:
        return sorted(m.id for m in store.matches.matches(state="done", limit=1000))
    finally:
        store.close()

