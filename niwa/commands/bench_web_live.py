"""``niwa bench web --live``: matches watched live, as a ladder serves them.

A real ``niwa ladder web`` process serves a store whose matches are running. For each
run, this process plays the referee's part for one of them: it writes a recorded
match's replay lines into the match's file in the data folder with the referee's own
writer (:class:`niwa.referee.replay.ReplayWriter`), one step every ``--pace-ms`` (a bot
thinking; paced past the writer's flush interval, every step reaches the disk as it is
written), while N watchers follow the match's live stream over HTTP. Figures:

* latency: from a step's line being written to its frame arriving at a watcher
  (median and 90th percentile over every step and watcher; both ends on this machine's
  monotonic clock);
* the web process's CPU (``/proc/PID/stat``: every thread of it) while the match is
  played, as a share of one core, with 0 watchers (the baseline: the server idle beside
  a match) and with each ``--watchers`` count, in the same run.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import SocketStream

from niwa import engine
from niwa.commands.bench import text_out, write_json
from niwa.ladder import submission
from niwa.ladder.store import ACTIVE, Store
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.referee.procstat import cpu_seconds
from niwa.referee.replay import ReplayWriter

_FRAME_ID = re.compile(rb"id: (\d+)\nevent: frame")


def recorded(folder: Path, game: str, steps: int) -> list[bytes]:
    """A match between built-ins, in process: its replay's lines, cut to the header and
    ``steps`` step lines, and its result line (which ends the watchers' streams)."""
    path = folder / "recorded.jsonl"
    bots = [BotSpec.parse("builtin:random"), BotSpec.parse("builtin:greedy")]
    play_match(MatchSpec(game=game, bots=bots, seed=7, replay_path=path, in_process=True))
    lines = path.read_bytes().splitlines(keepends=True)
    return [*lines[: min(steps + 1, len(lines) - 1)], lines[-1]]


def running_matches(db: Path, game: str, count: int) -> tuple[Store, list[tuple[int, Path]]]:
    """``count`` matches of ``game`` claimed (running) in a new store at ``db``; each
    with the file a worker would write its replay to."""
    store = Store.open(str(db))
    seats = [submission.builtin_bot(store, name, game, ACTIVE).id for name in ("random", "greedy")]
    version = engine.load(game).info.version
    found = []
    for _ in range(count):
        store.matches.queue_match(game, version, seats, seed=1)
        match = store.matches.claim_next()
        assert match is not None
        part = store.files.attempt_replay_path(match.id, match.attempts)
        part.parent.mkdir(parents=True, exist_ok=True)
        found.append((match.id, part.with_name(f"{part.name}.{os.getpid()}.part")))
    return store, found


def web_process(db: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", str(db), "--listen",
         "127.0.0.1:0", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    found = re.search(r"web on http://(\S+)", proc.stdout.readline())
    if found is None:
        proc.kill()
        raise RuntimeError("niwa ladder web did not start")
    return proc, found.group(1)


class Watcher:
    """One browser's stream, read raw: when each frame's event id arrived."""

    def __init__(self) -> None:
        self.arrived: dict[int, float] = {}
        self.started = anyio.Event()
        self.ended = anyio.Event()

    async def follow(self, address: str, match_id: int) -> None:
        host, port = address.rsplit(":", 1)
        stream: SocketStream = await anyio.connect_tcp(host, int(port))
        async with stream:
            await stream.send(f"GET /matches/{match_id}/live HTTP/1.1\r\nHost: {address}\r\n"
                              "Accept: text/event-stream\r\n\r\n".encode())  # fmt: skip
            buffer = b""
            while not self.ended.is_set():
                buffer += await stream.receive()
                now = time.monotonic()
                if b"event: start" in buffer:
                    self.started.set()
                if b"event: end" in buffer:
                    self.ended.set()
                for found in _FRAME_ID.finditer(buffer):
                    self.arrived.setdefault(int(found.group(1)), now)
                buffer = buffer[-64:]  # an id line cut by a read is found next time


async def one_run(address: str, web_pid: int, match: tuple[int, Path], lines: list[bytes],
                  watchers: int, pace_s: float) -> dict[str, Any]:  # fmt: skip
    match_id, path = match
    writer = ReplayWriter(path)
    written: dict[int, float] = {}
    crowd = [Watcher() for _ in range(watchers)]
    async with anyio.create_task_group() as tg:
        writer.step_line(lines[0].decode().rstrip("\n"))  # the header
        writer.flush()
        for w in crowd:
            tg.start_soon(w.follow, address, match_id)
        for w in crowd:
            await w.started.wait()
        cpu, wall = cpu_seconds(web_pid), time.monotonic()
        for index, line in enumerate(lines[1:-1], 1):
            await anyio.sleep(pace_s)
            written[index] = time.monotonic()
            writer.step_line(line.decode().rstrip("\n"))
        await anyio.sleep(pace_s)
        cpu, wall = cpu_seconds(web_pid) - cpu, time.monotonic() - wall
        writer.step_line(lines[-1].decode().rstrip("\n"))  # the result
        writer.close()
        path.unlink()  # as the ladder renames it: the watchers' tail keeps reading
        with anyio.move_on_after(60):
            for w in crowd:
                await w.ended.wait()
        tg.cancel_scope.cancel()
    latencies = [
        (w.arrived[i] - t) * 1e3 for w in crowd for i, t in written.items() if i in w.arrived
    ]
    return {"watchers": watchers, "steps": len(written), "cpu_s": cpu, "wall_s": wall,
            "core_share": cpu / wall, "latency_ms": latencies}  # fmt: skip


def run_live(args: argparse.Namespace) -> int:
    configure_cli_logging()  # the recorded match's log lines are not figures
    out = text_out(args)
    counts = [0, *args.watchers]
    with tempfile.TemporaryDirectory(prefix="niwa-bench-live-") as tmp:
        folder = Path(tmp)
        lines = recorded(folder, args.game, args.live_steps)
        store, matches = running_matches(folder / "ladder.db", args.game, len(counts))
        store.close()
        proc, address = web_process(folder / "ladder.db")
        try:
            load = os.getloadavg()
            print(f"live: {args.game}, {len(lines) - 2} steps a match, one every "
                  f"{args.pace_ms} ms; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
                  file=out)  # fmt: skip
            print(f"  {'watchers':>8} {'web CPU':>9} {'latency median':>15} {'p90':>8}",
                  file=out)  # fmt: skip
            runs = []
            for count, match in zip(counts, matches, strict=True):
                figures = anyio.run(one_run, address, proc.pid, match, lines, count,
                                    args.pace_ms / 1e3)  # fmt: skip
                runs.append(figures)
                lat = figures["latency_ms"]
                median = f"{statistics.median(lat):.1f}ms" if lat else "–"
                p90 = f"{statistics.quantiles(lat, n=10)[-1]:.1f}ms" if len(lat) > 1 else "–"
                print(f"  {count:>8} {figures['core_share'] * 100:>8.1f}% {median:>15} "
                      f"{p90:>8}", file=out)  # fmt: skip
            after = os.getloadavg()
            print(f"  load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}", file=out)
        finally:
            proc.terminate()
            proc.wait()
    write_json(args, {"target": "web live", "game": args.game, "pace_ms": args.pace_ms,
                      "load_average": [load, after], "runs": runs})  # fmt: skip
    return 0
