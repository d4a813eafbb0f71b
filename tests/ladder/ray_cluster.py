"""A real two-node Ray cluster on this machine for the executor's tests: a head
(``node-a``) and a second node (``node-b``) joined with ``ray start --address``, each its
own raylet with its own custom resource, its own name in the logs (NIWA_NODE) and its
own cache of bots (NIWA_NODE_CACHE).

Both listen on 127.0.0.2: Ray turns 127.0.0.1 into the machine's outward address, and
these tests keep every byte on the loopback. Every process ``ray start`` leaves runs in
the process group of that ``ray start`` (its own session), which is how they are
stopped: by group id, nothing else on the machine is touched.

The cluster owns all its Ray state: a private HOME (Ray reads ``~/.ray/auth_token``
there), its own temp dir (``/tmp/ray`` holds other sessions; a short one of its own
under the system's temp dir, since Ray's socket paths inside it must fit in 107 bytes
and pytest's temp dirs are deeper under pytest-xdist), no ``RAY_*`` variable
inherited from the caller, and token authentication switched on explicitly
(``RAY_AUTH_MODE=token``) with a token it generates, given to both nodes and, through
:meth:`Cluster.driver`, to this process when it connects. A token left by an earlier
``ray.init()`` on the machine would otherwise switch the head alone to token mode and
lock the second node out.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from niwa.ladder.ray_executor import NAME_LABEL, VERSION_LABEL, niwa_version, version_label
from niwa.referee.procstat import start_ticks
from tests.ladder.serving import alive, children
from tests.polling import wait_for

HOST = "127.0.0.2"
#: How fast the head declares a silent node dead (Ray's defaults take about 30 s): after
#: five missed checks of 3 s each, which a live raylet on a busy machine still answers.
FAST_HEALTH = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "3000",
    "RAY_health_check_failure_threshold": "5",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def ray_command() -> str:
    return str(Path(sys.executable).with_name("ray"))


def refresh_ray_config() -> None:
    """Make this process's Ray read its RAY_* variables again: it reads them once, on
    import, and caches the token it loaded."""
    from ray._raylet import AuthenticationTokenLoader, Config

    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


@dataclass
class Cluster:
    root: Path
    address: str = ""
    groups: list[int] = field(default_factory=list)  # process group of each `ray start`
    node_b_port: int = 0  # the second node's raylet, found by its port
    head_args: tuple[str, ...] = ()  # how the head was started (to start it again)
    temp: Path | None = None  # Ray's --temp-dir, made by start and removed by stop

    @property
    def ray_dir(self) -> Path:
        """Ray's temp dir (sessions, logs, sockets); made by :meth:`start`."""
        if self.temp is None:
            raise RuntimeError("the cluster has not been started")
        return self.temp

    @property
    def token_file(self) -> Path:
        return self.root / "auth_token"

    def auth_env(self) -> dict[str, str]:
        """The variables that give a Ray process this cluster's token."""
        return {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(self.token_file)}

    def start(self) -> None:
        self.token_file.touch(mode=0o600)
        self.token_file.write_text(secrets.token_hex(32))
        self.temp = Path(tempfile.mkdtemp(prefix="niwa-ray-"))
        (self.root / "home").mkdir()
        port = free_port()
        self.address = f"{HOST}:{port}"
        self.head_args = ("--head", f"--port={port}", '--resources={"node_a": 1}',
                          "--include-dashboard=false", f"--ray-client-server-port={free_port()}",
                          f"--temp-dir={self.ray_dir}")  # fmt: skip
        self._ray_start("node-a", *self.head_args)
        self.node_b_port = free_port()
        self.join("node-b", f"--node-manager-port={self.node_b_port}")

    def join(self, name: str, *args: str, version: str = "") -> int:
        """Start one more node, ``name``, advertising niwa ``version`` (default: this
        one's); return its process group."""
        return self._ray_start(name, f"--address={self.address}", *args,
                               f"--temp-dir={self.ray_dir}", version=version)  # fmt: skip

    def _ray_start(self, name: str, *args: str, version: str = "") -> int:
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env = {**inherited, **FAST_HEALTH, **self.auth_env(), "HOME": str(self.root / "home"),
               "NIWA_NODE": name, "NIWA_NODE_CACHE": str(self.root / f"cache-{name}")}  # fmt: skip
        labels = f"{VERSION_LABEL}={version_label(version or niwa_version())},{NAME_LABEL}={name}"
        proc = subprocess.Popen(
            [ray_command(), "start", *args, f"--node-ip-address={HOST}", "--num-cpus=1",
             "--disable-usage-stats", f"--labels={labels}"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.groups.append(proc.pid)
        out, _ = proc.communicate(timeout=600)  # a busy machine slows Ray's start a lot
        if proc.returncode != 0:
            raise RuntimeError(f"ray start ({name}) failed:\n{out[-3000:]}")
        return proc.pid

    @contextlib.contextmanager
    def driver(self) -> Iterator[None]:
        """This process, while inside, connects to the cluster as its drivers must: with
        the cluster's token and no other RAY_* variable of the caller's."""
        with pytest.MonkeyPatch.context() as patch:
            for name in [k for k in os.environ if k.startswith("RAY_")]:
                patch.delenv(name)
            for name, value in self.auth_env().items():
                patch.setenv(name, value)
            refresh_ray_config()
            try:
                yield
            finally:
                patch.undo()
                refresh_ray_config()

    def kill_node_b(self) -> set[tuple[int, str]]:
        """SIGKILL the second node's raylet; return the processes that ran under it
        just before (its workers, their referees' bots and guardians), each as (pid,
        start time) so a pid reused since is not mistaken for one of them."""
        flag = f"--node_manager_port={self.node_b_port}".encode()
        for pid in _running("/raylet", flag):
            under = {(p, _started(p)) for p in children(pid)}
            os.kill(pid, signal.SIGKILL)
            return under
        raise AssertionError("node-b's raylet is not running")

    def stop_head(self) -> None:
        """SIGKILL every process of the head: its ``ray start`` group (raylet, workers)
        and its GCS, found by its port: it outlived the group when only that was killed."""
        port = self.address.rpartition(":")[2]
        gcs = [
            (pid, _started(pid))
            for pid in _running("/gcs_server", f"--gcs_server_port={port}".encode())
        ]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.groups[0], signal.SIGKILL)
        for pid, _ in gcs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _gone(self.groups[0])
        wait_for("the head's GCS to end", lambda: not still_running(set(gcs)), 120)

    def start_head(self) -> None:
        """Start the head again, as it was first started (same address and token)."""
        # `ray start --head` refuses an address that its temp dir names as the current
        # cluster while any process (node-b's, say) still names that GCS: forget it.
        (self.ray_dir / "ray_current_cluster").unlink(missing_ok=True)
        self.groups[0] = self._ray_start("node-a", *self.head_args)

    def leave(self, group: int) -> None:
        """Stop the node ``join`` started as ``group`` (every process of it)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        self.groups.remove(group)
        _gone(group)

    def stop(self) -> None:
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError):  # every process already ended
                os.killpg(group, signal.SIGKILL)
        for group in self.groups:  # gone before the temp dirs are: poll, however slow
            _gone(group)
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)


def _running(program: str, flag: bytes) -> list[int]:
    """The pids of the processes running ``program`` (a path's tail) with ``flag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(program.encode()) and flag in args:
            found.append(int(entry.name))
    return found


def _gone(group: int) -> None:
    """Wait (at most two minutes) until no process of ``group`` is left."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def _started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot; "" if it is gone)."""
    try:
        return str(start_ticks(pid))
    except (OSError, ValueError):
        return ""


def still_running(processes: set[tuple[int, str]]) -> set[int]:
    """The pids of ``processes`` (from :meth:`Cluster.kill_node_b`) still running."""
    return {pid for pid, when in processes if when and _started(pid) == when and alive(pid)}
