"""A seat played by a bot process (sandboxed or not), spoken to over gRPC.

Life of a bot process, all inside the match nursery: create its cgroups, take its
uid (root, sandboxed) or make its socket directory (no sandbox), start it
(:func:`niwa.referee.sandbox.launcher`), drain its stdout and stderr continuously (keeping
only a bounded tail), wait for ``READY`` under the start-up limit, then
``Start``/``Act``/``Finish`` through :class:`niwa.referee.transport.BotClient`.
A sandboxed bot's socket is opened through its sandbox's ``/proc/PID/root`` without
following links (:func:`niwa.referee.sandbox.open_socket`), so a bot cannot point the
referee at another socket. :meth:`ProcessPlayer.close` stops it (SIGTERM, then SIGKILL
to every process of its cgroup or process group), reaps it, and removes what it made
(:func:`niwa.referee.cleanup.remove_tree`; a sandboxed bot leaves nothing on the host).

Fairness: with ``freeze_idle`` (the default) a bot that is not answering a call is
held back (its CPU quota cut to 1 %) after :data:`THROTTLE_AFTER_S` and frozen after
:data:`FREEZE_AFTER_S`, so it cannot burn CPU (or flood its pipes) while others think;
it is thawed just before ``Act``/``Finish`` and before it is signalled.

Floods: each pipe is read at full speed for its first :data:`FAST_BYTES`; past that
the referee reads at most :data:`THROTTLE_BYTES` per :data:`THROTTLE_S`, so a bot
writing as fast as it can blocks on its own writes and costs the referee a few reads
a second. A chunk costs a copy into a bounded tail, never a split into lines.

Errors are classified here, once: a passed deadline is TIMEOUT; an oversized or
malformed answer, two answers, or an error status the bot's server returned (any
code but UNKNOWN) ILLEGAL; a call that fails because the process has exited, or whose
handler threw (status UNKNOWN), CRASHED; a socket that no longer answers while the
process lives DISCONNECTED.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import structlog
import trio

from niwa.bots import builtin
from niwa.bots.manifest import Manifest
from niwa.bots.sdk import READY_LINE, SOCKET_ENV, Finish, GameStart, Reply
from niwa.referee import uids
from niwa.referee.cgroups import FIX, Cgroup, CgroupUnavailable, LimitsUnavailable
from niwa.referee.child import Child
from niwa.referee.cleanup import remove_tree
from niwa.referee.failures import BotFailure, Failure, raised
from niwa.referee.players import Question
from niwa.referee.procstat import cpu_seconds
from niwa.referee.sandbox import (
    RUN_DIR,
    SOCKET_NAME,
    BotLimits,
    Sandbox,
    SocketRefused,
    launcher,
    open_socket,
    sandbox_pid,
    seccomp_fd,
)
from niwa.referee.stderr_tail import moved_package_hint
from niwa.referee.transport import BotClient, CallEnd, CallError

#: Lines of stderr kept when a seat goes out (the replay keeps at most 4 KiB of them:
#: niwa.referee.stderr_tail); enough for a Node error line above its stack.
STDERR_TAIL_LINES = 40
#: Longest line kept (longer lines are cut): bounds memory against a flood.
MAX_LINE = 400
#: Raw bytes of stderr kept for the tail (fewer lines than STDERR_TAIL_LINES when
#: they are very long).
TAIL_BYTES = 64 << 10
#: Bytes of each pipe read at full speed; then the referee throttles its reads.
FAST_BYTES = 4 << 20
#: A throttled pipe is read at most this much per THROTTLE_S (640 KiB/s).
THROTTLE_BYTES = 64 << 10
THROTTLE_S = 0.1
#: Extra full-speed bytes once the bot's process has exited (what is left in the pipe).
EXIT_BYTES = 1 << 20
#: Prefix of a bot's run folder in the temp dir; the referee's pid follows.
RUN_DIR_PREFIX = "niwa-bot-"
_READY = re.compile(rb"(?:\A|\n)[ \t\r\f\v]*" + READY_LINE.encode() + rb"[ \t\r\f\v]*\n")
#: How long a bot that died before READY may take to close its stderr (a child it left
#: may hold it open) before the referee reads the tail for a hint.
STDERR_GRACE_S = 1.0
#: Bytes of stderr saved per bot in --log-dir.
LOG_LIMIT = 1 << 20
#: How long after its answer an idle bot is throttled, and frozen: long enough that a
#: bot asked again soon (a fast game) pays for neither, short beside a thinking bot.
THROTTLE_AFTER_S = 0.01
FREEZE_AFTER_S = 0.05
#: Time a bot gets to exit after SIGTERM before SIGKILL.
TERM_GRACE_S = 0.3
#: A DEADLINE_EXCEEDED this long before the deadline was the bot's own status, not ours.
DEADLINE_SLACK_S = 0.002
#: How long a broken call waits for the bot's exit before calling it something else;
#: longer when its cgroup has OOM-killed a process of it (its exit is on the way).
EXIT_WAIT_S = 0.2
OOM_EXIT_WAIT_S = 2.0

T = TypeVar("T")

_log = structlog.get_logger("niwa.referee")
_warned_no_cgroup = False


class _Tail:
    """The end of a stream in bounded memory: raw bytes, cut into lines only when
    read (a flood costs a copy per chunk, not work per line)."""

    def __init__(self, lines: int, keep: int = TAIL_BYTES) -> None:
        self.max_lines = lines
        self.keep = keep
        self._buf = bytearray()
        self._cut = False

    def feed(self, data: bytes | bytearray) -> None:
        if len(data) >= self.keep:
            self._buf[:] = data[-self.keep :]
            self._cut = True
            return
        self._buf += data
        over = len(self._buf) - self.keep
        if over > 0:
            del self._buf[:over]
            self._cut = True

    @property
    def lines(self) -> list[str]:
        """The last lines (the last one possibly unfinished), each cut at MAX_LINE."""
        parts = bytes(self._buf).split(b"\n")
        if self._cut and len(parts) > 1:
            parts = parts[1:]  # it may be the end of a longer line
        if parts and parts[-1] == b"":
            parts.pop()
        return [
            p[:MAX_LINE].decode("utf-8", "replace").rstrip("\r")
            for p in parts[-self.max_lines :]
        ]


class ProcessPlayer:
    def __init__(
        self,
        *,
        manifest: Manifest,
        seat: int,
        match_id: str,
        sandbox: bool,
        limits: BotLimits,
        startup_timeout_s: float,
        log_dir: Path | None,
        nursery: trio.Nursery,
        bot_dir: Path | None = None,
        freeze_idle: bool = True,
        require_limits: bool = False,
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
        self.freeze_idle = freeze_idle
        self.require_limits = require_limits
        self.log = _log.bind(match=match_id, seat=seat, bot=manifest.name)
        self._process: Child | None = None
        self._client: BotClient | None = None
        self._cgroup: Cgroup | None = None
        self._run_dir: Path | None = None  # the socket's directory without a sandbox
        self._uid: uids.UidLease | None = None
        self._info_fd: int | None = None  # bwrap's --info-fd, read end
        self._socket_fd: int | None = None  # O_PATH descriptor of the sandbox's socket
        self._stderr = _Tail(STDERR_TAIL_LINES)
        #: Bytes read from each pipe (what a flood cost the referee).
        self.bytes_read = {"stdout": 0, "stderr": 0}
        self._ready = trio.Event()
        self._exited = trio.Event()
        self._streams_done = trio.Event()
        self._closed = False
        self._frozen = self._throttled = False
        # The holder task's scope: its deadline is when the bot is next held back.
        self._keeper: trio.CancelScope | None = None
        self._next_step_at = self._freeze_at = math.inf
        self._idle_now = False
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
                with trio.move_on_after(STDERR_GRACE_S):  # its last words, to read them
                    await self._streams_done.wait()
                hint = moved_package_hint(self.stderr_tail())
                raise BotFailure(
                    Failure.CRASHED,
                    f"{self._exit_text()} before {READY_LINE}" + (f"; {hint}" if hint else ""),
                )
            raise BotFailure(
                Failure.TIMEOUT, f"no {READY_LINE} within {self.startup_timeout_s:g} s"
            )
        try:
            self._client = BotClient(self._socket_path(), self.limits.message_bytes)
            client = self._client
            await self._talk("Start", timeout_s, lambda: client.start(game, timeout_s))
        except BotFailure as failure:
            raise await self._exited_instead(failure) from None
        self._idle()
        self.log.info("bot_ready")

    async def act(self, question: Question, timeout_s: float) -> Reply:
        if self._client is None or self._exited.is_set():
            raise BotFailure(Failure.CRASHED, self._exit_text())
        client = self._client
        request = client.act_request(question)  # the referee's own data: bugs propagate
        self._thaw()
        try:
            reply: Reply = await self._talk(
                "Act", timeout_s, lambda: client.act(question, timeout_s, request)
            )
        finally:  # answered, failed or cancelled (timed out): idle again
            self._idle()
        return reply

    async def finish(self, result: Finish, timeout_s: float) -> None:
        if self._client is None or self._exited.is_set():
            return
        client = self._client
        self._thaw()
        await self._talk("Finish", timeout_s, lambda: client.finish(result, timeout_s))

    @property
    def client(self) -> BotClient | None:
        """The connection to the bot once it has started (``niwa bench referee`` times
        it against a plain gRPC stub on the same socket)."""
        return self._client

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
        return self._stderr.lines

    def _idle(self) -> None:
        """Not answering a call (unless it may ponder): throttled to 1 % of a CPU after
        :data:`THROTTLE_AFTER_S`, frozen after :data:`FREEZE_AFTER_S`. A v1 freeze and
        thaw cost about 0.25 ms together, a throttle a hundredth of that: a bot asked
        again soon (a fast game) is left alone or only throttled, one left waiting
        while others think is frozen, and its thaw is then small beside the wait."""
        group = self._cgroup
        if not self.freeze_idle or group is None or self._closed:
            return
        if not group.can_throttle:
            group.freeze()
            self._frozen = True
            return
        now = trio.current_time()
        self._idle_now = True
        self._next_step_at = now + THROTTLE_AFTER_S
        self._freeze_at = now + FREEZE_AFTER_S
        if self._keeper is None:
            self._keeper = trio.CancelScope(deadline=self._next_step_at)
            self.nursery.start_soon(self._hold_back, group, self._keeper)
        else:  # moving a deadline wakes nobody: nothing happens until it passes
            self._keeper.deadline = self._next_step_at

    async def _hold_back(self, group: Cgroup, first: trio.CancelScope) -> None:
        """One task for the bot's life, woken only when a deadline passes: a bot asked
        again before :data:`THROTTLE_AFTER_S` costs two deadline changes, not a task."""
        scope = first
        while True:
            with scope:
                await trio.sleep_forever()
            if self._closed:
                return
            now = trio.current_time()
            if not self._idle_now:  # asked again after the deadline passed: not now
                self._next_step_at = math.inf
            elif not self._throttled:
                group.throttle()
                self._throttled = True
                self._next_step_at = self._freeze_at
            elif not self._frozen and now >= self._freeze_at:
                group.freeze()
                # Throttled threads would reach the freezer only when their quota comes
                # back (up to a 100 ms period); with it back they stop at once.
                group.unthrottle()
                self._throttled = False
                self._frozen = True
                self._next_step_at = math.inf
            scope = self._keeper = trio.CancelScope(deadline=self._next_step_at)

    def _thaw(self) -> None:
        """About to be asked (or signalled): lift the freeze and the throttle."""
        self._idle_now = False
        if self._keeper is not None:
            self._keeper.deadline = math.inf
        group = self._cgroup
        if group is None:
            return
        if self._frozen or not group.can_throttle:
            group.thaw()
            self._frozen = False
        if self._throttled:
            group.unthrottle()
            self._throttled = False

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._keeper is not None:
            self._keeper.cancel()  # the holder task sees _closed and ends
        if self._client is not None:
            self._client.close()
        for fd in (self._socket_fd, self._info_fd):
            if fd is not None:
                os.close(fd)
        self._socket_fd = self._info_fd = None
        if self._process is not None:
            with trio.CancelScope(shield=True):
                await self._stop()
        if self._cgroup is not None:
            with trio.CancelScope(shield=True):
                await self._cgroup.remove()
        if self._uid is not None:  # only now: no process of the bot is left
            self._uid.release()
        if self._run_dir is not None:
            remove_tree(self._run_dir)
        self.log.info("bot_stopped", exit=self._exit_text(), **self._bytes_fields(),
                      **self._traffic_fields())  # fmt: skip

    def _bytes_fields(self) -> dict[str, int]:
        return {f"{k}_bytes": v for k, v in self.bytes_read.items()}

    def _traffic_fields(self) -> dict[str, int]:
        """What the referee read from the bot's server over the match (its calls, and
        the HTTP/2 frames, h2 events and socket reads they took)."""
        if self._client is None:
            return {}
        traffic = self._client.traffic
        return {"calls": self._client.calls, "http2_frames": traffic.frames,
                "http2_events": traffic.events, "socket_reads": traffic.reads}  # fmt: skip

    def _socket_path(self) -> str:
        """Where to connect: without a sandbox the referee's own directory; sandboxed,
        ``/proc/self/fd/N`` of the socket opened without following links."""
        if not self.sandbox:
            assert self._run_dir is not None
            return str(self._run_dir / SOCKET_NAME)
        assert self._info_fd is not None
        try:
            pid = sandbox_pid(os.read(self._info_fd, 4096))
            owner = self._uid.uid if self._uid is not None else os.geteuid()
            self._socket_fd = open_socket(pid, owner)
        except (OSError, SocketRefused) as e:
            raise BotFailure(
                Failure.DISCONNECTED, f"no usable socket at {RUN_DIR}/{SOCKET_NAME}: {e}"
            ) from None
        return f"/proc/self/fd/{self._socket_fd}"

    # -- process handling ---------------------------------------------------------

    async def _spawn(self) -> None:
        global _warned_no_cgroup
        problem = ""
        try:
            self._cgroup = Cgroup.create(f"{self.match_id}-{self.seat}", self.limits)
            if self._cgroup.missing:
                problem = f"cgroup v{self._cgroup.version} without " \
                          f"{self._cgroup.describe_missing()}"
        except CgroupUnavailable as e:
            problem = str(e)
        if problem and self.require_limits and self.sandbox:
            if self._cgroup is not None:
                await self._cgroup.remove()
                self._cgroup = None
            raise LimitsUnavailable(f"cannot enforce the bot limits: {problem}; {FIX}")
        if problem and not _warned_no_cgroup:
            _warned_no_cgroup = True
            _log.warning("no_cgroup", reason=problem, fallback="rlimits and /proc accounting")
        if not self.sandbox:
            # The referee's pid in the name: a later clean-up can tell whose folder it is.
            self._run_dir = Path(tempfile.mkdtemp(prefix=f"{RUN_DIR_PREFIX}p{os.getpid()}-"))
        elif os.geteuid() == 0:
            self._uid = uids.acquire()
        home = "/tmp" if self._run_dir is None else str(self._run_dir)
        env = {
            SOCKET_ENV: f"{RUN_DIR}/{SOCKET_NAME}" if self.sandbox else f"{home}/{SOCKET_NAME}",
            "NIWA_MATCH": self.match_id,
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
        }
        shown: list[Path] = []
        if self.bot_dir is None:  # a built-in bot: the host folders it is told of
            for name in builtin.HOST_FOLDERS:
                folder = os.environ.get(name)
                if folder:  # passed even if missing: the bot then says it found nothing
                    env[name] = str(Path(folder).resolve())
                    if Path(folder).is_dir():
                        shown.append(Path(env[name]))
        procs = self._cgroup.procs_files() if self._cgroup else []
        if self.sandbox:
            info_read, info_write = os.pipe()
            os.set_blocking(info_read, False)
            self._info_fd = info_read
            filter_fd = seccomp_fd()
            box = Sandbox(
                bot_dir=self.bot_dir,
                uid=self._uid.uid if self._uid is not None else None,
                seccomp_fd=filter_fd,
                info_fd=info_write,
                read_only=tuple(shown),
            )
            try:
                argv = launcher(self.command(), env, self.limits, procs, box)
                self._process = Child(argv, env, str(self.bot_dir or "/"), (filter_fd, info_write))
            finally:  # the child has its own copies
                os.close(filter_fd)
                os.close(info_write)
        else:
            argv = launcher(self.command(), env, self.limits, procs, None)
            self._process = Child(argv, env, str(self.bot_dir or self._run_dir))
        self.log.info("bot_started", pid=self._process.pid, sandbox=self.sandbox)
        self.nursery.start_soon(self._watch)

    def command(self) -> list[str]:
        if self.bot_dir is None:  # a built-in bot, served by this Python
            return [sys.executable, "-m", "niwa.bots.builtin", self.name]
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

        carry = b""  # stdout after its last newline, until READY (short: READY is)

        def stdout(chunk: bytes) -> None:
            nonlocal carry
            if self._ready.is_set():
                return
            data = carry + chunk
            if _READY.search(data):
                self._ready.set()
            cut = data.rfind(b"\n")
            carry = data[cut:] if cut >= 0 else data
            if len(carry) > 64:  # too long to be READY: remember only "mid-line"
                carry = b"-"

        written = 0

        def stderr(chunk: bytes) -> None:
            nonlocal written
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
                nursery.start_soon(self._drain, process.stdout, "stdout", stdout)
                nursery.start_soon(self._drain, process.stderr, "stderr", stderr)
        finally:
            await process.stdout.aclose()
            await process.stderr.aclose()
            if log_file is not None:
                log_file.close()
            self._streams_done.set()

    async def _drain(
        self, stream: trio.lowlevel.FdStream, name: str, handle: Callable[[bytes], None]
    ) -> None:
        """Read one pipe to its end: at full speed for FAST_BYTES (plus EXIT_BYTES once
        the process has exited), then THROTTLE_BYTES per THROTTLE_S."""
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            while True:
                budget = FAST_BYTES + (EXIT_BYTES if self._exited.is_set() else 0)
                if self.bytes_read[name] < budget:
                    chunk = await stream.receive_some(THROTTLE_BYTES)
                else:  # a flood: the bot blocks on its own writes, which is its problem
                    await trio.sleep(THROTTLE_S)
                    chunk = await stream.receive_some(THROTTLE_BYTES)
                if not chunk:
                    return
                self.bytes_read[name] += len(chunk)
                handle(chunk)

    async def _stop(self) -> None:
        """SIGTERM, a short grace, then SIGKILL everything the bot started; reap."""
        assert self._process is not None
        self._thaw()  # a frozen task does not act on a signal until it is thawed
        self._signal_all(signal.SIGTERM)
        with trio.move_on_after(TERM_GRACE_S):
            await self._reaped()
        self._signal_all(signal.SIGKILL)
        if self._cgroup is not None:
            await self._cgroup.kill_all()
        await self._reaped()
        with trio.move_on_after(1.0):  # pipes close once the last holder is gone
            await self._streams_done.wait()

    async def _reaped(self) -> None:
        """Wait for the exit and reap, ourselves: when the match is being cancelled,
        the reaper task in its nursery is cancelled too and would never report."""
        assert self._process is not None
        if not self._exited.is_set():
            await self._process.wait()
            self._exited.set()

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
        server returned is ILLEGAL whatever its code, but UNKNOWN (its handler threw:
        CRASHED): only the referee's own deadline is a TIMEOUT, and only a connection
        that no longer answers DISCONNECTED."""
        late = elapsed_s >= timeout_s - DEADLINE_SLACK_S
        if error.end is CallEnd.DEADLINE and late:
            return BotFailure(
                Failure.TIMEOUT, f"{call}: no answer within {timeout_s * 1000:.0f} ms"
            )
        if error.end is CallEnd.TOO_LARGE:
            return BotFailure(
                Failure.ILLEGAL,
                f"{call}: answer over the {self.limits.message_bytes}-byte limit",
            )
        if self._client is not None and self._client.serving():
            # The connection is up, but a process being killed (by the memory cgroup,
            # say) may reset its streams before its socket closes: CANCELLED. Only a
            # live process's status is the bot's server's own answer.
            if error.end is CallEnd.BROKEN and await self._exits_soon():
                return BotFailure(Failure.CRASHED, self._exit_text())
            if error.end is CallEnd.RAISED:  # its handler threw: a crash
                return raised(call, error.details)
            return BotFailure(
                Failure.ILLEGAL,
                f"{call}: an error status from your server: {error.status} {error.details}",
            )
        # A broken call often means the process is dying: give it a moment to be reaped.
        if await self._exits_soon():
            return BotFailure(Failure.CRASHED, self._exit_text())
        return BotFailure(Failure.DISCONNECTED, f"{call}: {error.status} {error.details}")

    async def _exited_instead(self, failure: BotFailure) -> BotFailure:
        """A process that has exited is CRASHED, whatever broke first on the way (its
        socket is gone with it): DISCONNECTED is for a live process only."""
        if failure.kind is Failure.DISCONNECTED and await self._exits_soon():
            return BotFailure(Failure.CRASHED, self._exit_text())
        return failure

    async def _exits_soon(self) -> bool:
        """Whether the process exits within :data:`EXIT_WAIT_S` (or, when its cgroup
        has OOM-killed it, within :data:`OOM_EXIT_WAIT_S`: it is dying)."""
        with trio.move_on_after(EXIT_WAIT_S):
            await self._exited.wait()
        if not self._exited.is_set() and self._cgroup is not None and self._cgroup.oom_killed():
            with trio.move_on_after(OOM_EXIT_WAIT_S):
                await self._exited.wait()
        return self._exited.is_set()

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


def _tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU of ``pid`` and its descendants (and their reaped children),
    from /proc; used when no cgroup accounts for the bot."""
    total = 0.0
    pending = [pid]
    seen: set[int] = set()
    while pending:
        p = pending.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            total += cpu_seconds(p, reaped_children=True)
            for task in Path(f"/proc/{p}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total if seen else None
