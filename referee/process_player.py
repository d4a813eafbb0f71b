"""A seat played by a bot process (sandboxed or not), spoken to over gRPC.

Life of a bot process, all inside the match nursery: create its cgroups and socket
directory, start it (:func:`referee.sandbox.launcher`), drain its stdout and stderr
continuously (keeping only a bounded tail), wait for ``READY`` under the start-up
limit, then ``Start``/``Act``/``Finish`` through :class:`referee.transport.BotClient`.
:meth:`ProcessPlayer.close` stops it (SIGTERM, then SIGKILL to every process of its
cgroup or process group), reaps it, and removes what it made.

Errors are classified here, once: a passed deadline is TIMEOUT; an oversized or
malformed answer, two answers, or an error status the bot's server returned (any
code) ILLEGAL; a call that fails because the process has exited CRASHED; a socket
that no longer answers while the process lives DISCONNECTED.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import grpc
import structlog
import trio

from bots.manifest import Manifest
from bots.sdk import READY_LINE, SOCKET_ENV, Finish, GameStart, Reply
from referee.cgroups import Cgroup, CgroupUnavailable
from referee.child import Child
from referee.failures import BotFailure, Failure
from referee.players import Question
from referee.sandbox import RUN_DIR, SANDBOX_UID, SOCKET_NAME, Limits, launcher
from referee.transport import BotClient, CallError

#: Lines of stderr kept for the replay when a seat goes out.
STDERR_TAIL_LINES = 20
#: Longest line kept (longer lines are cut): bounds memory against a flood.
MAX_LINE = 400
#: Bytes of stderr saved per bot in --log-dir.
LOG_LIMIT = 1 << 20
#: Time a bot gets to exit after SIGTERM before SIGKILL.
TERM_GRACE_S = 0.3
#: A DEADLINE_EXCEEDED this long before the deadline was the bot's own status, not ours.
DEADLINE_SLACK_S = 0.002

T = TypeVar("T")

_log = structlog.get_logger("niwa.referee")
_warned_no_cgroup = False


class _Tail:
    """The last lines of a stream, each cut at MAX_LINE, in bounded memory."""

    def __init__(self, lines: int) -> None:
        self.lines: deque[str] = deque(maxlen=lines)
        self._partial = b""

    def feed(self, data: bytes | bytearray) -> list[str]:
        """Add bytes; return the complete lines they finished."""
        chunks = (self._partial + data).split(b"\n")
        self._partial = chunks.pop()[-MAX_LINE:]
        done = [c[:MAX_LINE].decode("utf-8", "replace").rstrip("\r") for c in chunks]
        self.lines.extend(done)
        return done

    def close(self) -> None:
        if self._partial:
            self.lines.append(self._partial.decode("utf-8", "replace"))
            self._partial = b""


class ProcessPlayer:
    def __init__(
        self,
        *,
        manifest: Manifest,
        seat: int,
        match_id: str,
        sandbox: bool,
        limits: Limits,
        startup_timeout_s: float,
        log_dir: Path | None,
        nursery: trio.Nursery,
        bot_dir: Path | None = None,
    ) -> None:
        self.name = manifest.name
        self.version = manifest.version
        self.manifest = manifest
        self.bot_dir = bot_dir
        self.seat = seat
        self.match_id = match_id
        self.sandbox = sandbox
        self.limits = limits
        self.startup_timeout_s = startup_timeout_s
        self.log_dir = log_dir
        self.nursery = nursery
        self.log = _log.bind(match=match_id, seat=seat, bot=manifest.name)
        self._process: Child | None = None
        self._client: BotClient | None = None
        self._cgroup: Cgroup | None = None
        self._run_dir: Path | None = None
        self._stdout = _Tail(5)
        self._stderr = _Tail(STDERR_TAIL_LINES)
        self._ready = trio.Event()
        self._exited = trio.Event()
        self._streams_done = trio.Event()
        self._closed = False
        self.ready_after_s: float | None = None  # spawn to READY, for benchmarks

    # -- the Player protocol ------------------------------------------------------

    async def start(self, game: GameStart, timeout_s: float) -> None:
        spawned = time.perf_counter()
        with trio.move_on_after(self.startup_timeout_s):
            await self._spawn()
            await self._first_of(self._ready, self._exited)
        if self._ready.is_set():
            self.ready_after_s = time.perf_counter() - spawned
        if not self._ready.is_set():
            if self._exited.is_set():
                raise BotFailure(Failure.CRASHED, f"{self._exit_text()} before {READY_LINE}")
            raise BotFailure(
                Failure.TIMEOUT, f"no {READY_LINE} within {self.startup_timeout_s:g} s"
            )
        assert self._run_dir is not None
        self._client = BotClient(str(self._run_dir / SOCKET_NAME), self.limits.message_bytes)
        client = self._client
        await self._talk("Start", timeout_s, lambda: client.start(game, timeout_s))
        self.log.info("bot_ready")

    async def act(self, question: Question, timeout_s: float) -> Reply:
        if self._client is None or self._exited.is_set():
            raise BotFailure(Failure.CRASHED, self._exit_text())
        client = self._client
        request = client.act_request(question)  # the referee's own data: bugs propagate
        reply: Reply = await self._talk(
            "Act", timeout_s, lambda: client.act(question, timeout_s, request)
        )
        return reply

    async def finish(self, result: Finish, timeout_s: float) -> None:
        if self._client is None or self._exited.is_set():
            return
        client = self._client
        await self._talk("Finish", timeout_s, lambda: client.finish(result, timeout_s))

    @property
    def charges_cpu(self) -> bool:
        """Whether :meth:`cpu_seconds` counts everything the bot runs (its cgroup), so
        the match may charge CPU time against its clock."""
        return self._cgroup is not None

    async def _talk(
        self, call: str, timeout_s: float, send: Callable[[], Awaitable[T]]
    ) -> T:
        """One call to the bot; everything that goes wrong while talking to it (a
        status, a malformed reply, a surprise from the gRPC library) is its failure."""
        sent = time.perf_counter()
        try:
            return await send()
        except BotFailure:
            raise
        except CallError as e:
            elapsed = time.perf_counter() - sent
            raise await self._classify(e, call, timeout_s, elapsed) from None
        except Exception as e:
            self.log.warning("call_raised", call=call, error=repr(e)[:200])
            if self._exited.is_set():
                raise BotFailure(Failure.CRASHED, self._exit_text()) from None
            raise BotFailure(
                Failure.ILLEGAL, f"{call}: talking to the bot raised {type(e).__name__}"
            ) from None

    def cpu_seconds(self) -> float | None:
        if self._cgroup is not None:
            return self._cgroup.cpu_seconds()
        if self._process is None:
            return None
        return _tree_cpu_seconds(self._process.pid)

    def stderr_tail(self) -> list[str]:
        return list(self._stderr.lines)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._client is not None:
            self._client.close()
        if self._process is not None:
            with trio.CancelScope(shield=True):
                await self._stop()
        if self._cgroup is not None:
            with trio.CancelScope(shield=True):
                await self._cgroup.remove()
        if self._run_dir is not None:
            shutil.rmtree(self._run_dir, ignore_errors=True)
        self.log.info("bot_stopped", exit=self._exit_text())

    # -- process handling ---------------------------------------------------------

    async def _spawn(self) -> None:
        global _warned_no_cgroup
        self._run_dir = Path(tempfile.mkdtemp(prefix="niwa-bot-"))
        as_root = os.geteuid() == 0
        if self.sandbox and as_root:
            os.chown(self._run_dir, SANDBOX_UID, SANDBOX_UID)
        try:
            self._cgroup = Cgroup.create(f"{self.match_id}-{self.seat}", self.limits)
        except CgroupUnavailable as e:
            if not _warned_no_cgroup:
                _warned_no_cgroup = True
                _log.warning("no_cgroup", reason=str(e), fallback="rlimits and /proc accounting")
        socket = f"{RUN_DIR}/{SOCKET_NAME}" if self.sandbox else str(self._run_dir / SOCKET_NAME)
        env = {
            SOCKET_ENV: socket,
            "NIWA_MATCH": self.match_id,
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp" if self.sandbox else str(self._run_dir),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
        }
        argv = launcher(
            self.command(),
            env,
            self.limits,
            self._cgroup.procs_files() if self._cgroup else [],
            self.sandbox,
            self.bot_dir,
            self._run_dir,
        )
        self._process = Child(argv, env, str(self.bot_dir or self._run_dir))
        self.log.info("bot_started", pid=self._process.pid, sandbox=self.sandbox)
        self.nursery.start_soon(self._watch)

    def command(self) -> list[str]:
        if self.bot_dir is None:  # a built-in bot, served by this Python
            return [sys.executable, "-m", "bots.builtin", self.name]
        return list(self.manifest.command)

    async def _watch(self) -> None:
        """Drain both pipes and reap the process; runs until both pipes close."""
        process = self._process
        assert process is not None
        log_file = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            path = self.log_dir / f"{self.match_id}-seat{self.seat}-{self.name}.stderr"
            log_file = path.open("wb")

        async def stdout() -> None:
            async for chunk in process.stdout:
                lines = self._stdout.feed(chunk)
                if not self._ready.is_set() and READY_LINE in (ln.strip() for ln in lines):
                    self._ready.set()

        async def stderr() -> None:
            written = 0
            async for chunk in process.stderr:
                self._stderr.feed(chunk)
                if log_file is not None and written < LOG_LIMIT:
                    log_file.write(chunk[: LOG_LIMIT - written])
                    written += len(chunk)

        async def reap() -> None:
            await process.wait()
            self._exited.set()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(reap)
                nursery.start_soon(_ignore_closed, stdout)
                nursery.start_soon(_ignore_closed, stderr)
        finally:
            self._stderr.close()
            await process.stdout.aclose()
            await process.stderr.aclose()
            if log_file is not None:
                log_file.close()
            self._streams_done.set()

    async def _stop(self) -> None:
        """SIGTERM, a short grace, then SIGKILL everything the bot started; reap."""
        assert self._process is not None
        self._signal_all(signal.SIGTERM)
        with trio.move_on_after(TERM_GRACE_S):
            await self._exited.wait()
        self._signal_all(signal.SIGKILL)
        if self._cgroup is not None:
            await self._cgroup.kill_all()
        await self._exited.wait()
        with trio.move_on_after(1.0):  # pipes close once the last holder is gone
            await self._streams_done.wait()

    def _signal_all(self, sig: signal.Signals) -> None:
        assert self._process is not None
        pids = self._cgroup.pids() if self._cgroup is not None else set()
        if self._process.returncode is None:
            pids.add(self._process.pid)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, sig)  # the session we started it in

    @staticmethod
    async def _first_of(*events: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for event in events:

                async def wait(e: trio.Event = event) -> None:
                    await e.wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(wait)

    async def _classify(
        self, error: CallError, call: str, timeout_s: float, elapsed_s: float
    ) -> BotFailure:
        """What a failed call means (docs/protocol.md, "Failures"). A status the bot's
        server returned is ILLEGAL whatever its code: only the referee's own deadline
        is a TIMEOUT, and only a connection that no longer answers DISCONNECTED."""
        code = error.code
        late = elapsed_s >= timeout_s - DEADLINE_SLACK_S
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and late:
            return BotFailure(
                Failure.TIMEOUT, f"{call}: no answer within {timeout_s * 1000:.0f} ms"
            )
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "received" in error.details.lower():
            return BotFailure(
                Failure.ILLEGAL,
                f"{call}: answer over the {self.limits.message_bytes}-byte limit",
            )
        if self._client is not None and self._client.serving():
            # The connection is up: the status came from the bot's server.
            return BotFailure(
                Failure.ILLEGAL,
                f"{call}: an error status from your server: {code.name} {error.details}",
            )
        # A broken call often means the process is dying: give it a moment to be reaped.
        with trio.move_on_after(0.2):
            await self._exited.wait()
        if self._exited.is_set():
            return BotFailure(Failure.CRASHED, self._exit_text())
        return BotFailure(Failure.DISCONNECTED, f"{call}: {code.name} {error.details}")

    def _exit_text(self) -> str:
        if self._process is None or self._process.returncode is None:
            return "not running"
        code = self._process.returncode
        if self._cgroup is not None and self._cgroup.oom_killed():
            return f"killed for using over {self.limits.memory_mib} MiB of memory"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        if code > 128 and self.sandbox:  # bwrap reports a signalled child as 128 + signal
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(code - 128).name}"
        return f"exited with code {code}"


async def _ignore_closed(reader: object) -> None:
    with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
        await reader()  # type: ignore[operator]


def _tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU of ``pid`` and its descendants (and their reaped children),
    from /proc; used when no cgroup accounts for the bot."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    pending = [pid]
    seen: set[int] = set()
    while pending:
        p = pending.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
            for task in Path(f"/proc/{p}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total / ticks if seen else None
