"""Matches watched live: a running match's replay file, read as the referee writes it,
re-simulated with the engine into the viewer's frames, sent as server-sent events.

Watchers get the spectator's view only (``observe(None)``) until the match ends: no
seat's view, no seed, no chosen action or chance outcome (either can be a hidden card),
no legal list, note, debug or detail text; a move shows only who moved, its status and
its times. The full replay, with all of that, is the page's once the match is over.
``delay`` holds frames back: a watcher sees frame ``i`` once ``i + delay`` frames exist
(or the match has ended).

One :class:`Tail` per file, shared by its watchers: one of them reads the file every
:data:`POLL_S` while the others wait for the frames it adds, so a hundred watchers cost
one reader, not a hundred. The file is held open: the ladder renames a replay when its
match is recorded, which does not disturb a reader of the open file.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any

import anyio
import structlog

from niwa.engine import CHANCE, JSON, Game, State
from niwa.engine.api import ScoreNow
from niwa.referee import replay as replays
from niwa.referee.replay import Header, Replay, ReplayError, ResultLine, Step
from niwa.web.replay_view import FORMAT, MAX_STEPS, diff, renderer_url

#: How often a watched file is read for new lines.
POLL_S = 0.05
#: A comment line this often keeps an idle stream open through proxies.
KEEPALIVE_S = 15.0
#: The browser waits this long before reconnecting a dropped stream.
RETRY_MS = 3000
#: What the viewer shows for the seed of a running match (the seed would tell its deals).
SEED_HIDDEN = "hidden until the match ends"
#: Bytes read from the file at a time (a replay is at most MAX_FILE_BYTES).
READ_BYTES = 1 << 20

log = structlog.get_logger("niwa.web")


def sse(kind: str, data: JSON, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def public_moves(step: Step) -> list[dict[str, JSON]]:
    """A step's moves as a watcher of the running match may see them (module docstring)."""
    moves: list[dict[str, JSON]] = []
    for m in step.moves:
        if m.seat == CHANCE:
            moves.append({"seat": CHANCE, "text": "chance (shown when the match ends)"})
            continue
        moves.append({
            "seat": m.seat, "status": m.status, "text": "moved (shown when the match ends)",
            "legal": [], "legal_count": 0, "chosen": -1,
            "wall_ms": m.wall_ms, "cpu_ms": m.cpu_ms, "clock_ms": m.clock_ms,
        })  # fmt: skip
    return moves


class Tail:
    """One replay file read as it grows, and the spectator frames made of it so far:
    ``events[0]`` starts the viewer (the header's public part and frame 0), ``events[i]``
    adds frame ``i`` (and the moves of frame ``i - 1``)."""

    def __init__(self, path: Path, delay: int = 0) -> None:
        self.path = path
        self.delay = delay
        self.file: IO[bytes] | None = path.open("rb")
        self.read = 0
        self.pending = b""
        self.lines = 0
        self.header: Header | None = None
        self.game: Game | None = None
        self.state: State | None = None
        self.view: JSON = None
        self.steps = 0
        self.texts = False
        self.score_now: ScoreNow | None = None
        self.events: list[str] = []
        self.ended = False
        #: Why the tail stopped before the end (a damaged file), for the watchers.
        self.problem = ""
        self.changed = anyio.Event()
        self.polling = False
        self.polled_at = 0.0
        self.watchers = 0

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def visible(self) -> int:
        """How many events a watcher may have now (the delay held back)."""
        if self.ended or self.problem:
            return len(self.events)
        return max(0, len(self.events) - self.delay)

    def poll(self) -> bool:
        """Read what was written since the last poll; whether frames were added or the
        tail stopped."""
        if self.file is None or self.ended or self.problem:
            return False
        before = len(self.events)
        try:
            data = self.file.read(READ_BYTES)
            self.read += len(data)
            if self.read > replays.MAX_FILE_BYTES:
                raise ReplayError(f"{self.path.name}: larger than a replay may be")
            *lines, self.pending = (self.pending + data).split(b"\n")
            for raw in lines:
                self.lines += 1
                self.line(raw + b"\n")
                if self.ended:
                    break
        except (ReplayError, OSError) as e:
            self.problem = f"the replay being written cannot be read: {e}"
            log.warning("live_replay_unreadable", path=str(self.path), error=str(e))
        if self.ended or self.problem:
            self.close()
        return len(self.events) > before or self.ended or bool(self.problem)

    def line(self, raw: bytes) -> None:
        parsed = replays.parse_line(raw, self.lines, self.header, self.steps, self.path.name)
        if isinstance(parsed, Header):
            self.start(parsed)
        elif isinstance(parsed, Step):
            self.step(parsed)
        elif isinstance(parsed, ResultLine):
            self.ended = True

    def start(self, header: Header) -> None:
        replay = Replay(header, [], None)
        self.header, self.game = header, replay.game()
        self.state = replays.new_game(replay, self.game)
        self.view = self.state.observe(None)
        renderer = renderer_url(self.game)
        self.texts = renderer is None
        self.score_now = self.game.score_now()
        frame = self.frame([[[], self.view]], self.view)
        self.events.append(sse("start", {
            "format": FORMAT, "live": True, "game": header.game, "renderer": renderer,
            "version": header.version, "players": header.players, "seed": SEED_HIDDEN,
            "match_id": header.match_id, "started": header.started,
            "time_control": dict(header.time_control), "clock": header.clock,
            "seats": [{"seat": s.seat, "bot": s.bot, "name": s.name, "version": s.version}
                      for s in header.seats],
            "delay": self.delay, "result": None, "frames": [frame],
            "glossary": dict(self.game.glossary() or {}),
        }, 0))  # fmt: skip

    def step(self, step: Step) -> None:
        if self.state is None or self.steps >= MAX_STEPS:
            raise ReplayError(f"more than {MAX_STEPS} steps: the viewer shows no more")
        replays.apply_step(step, self.state)
        self.steps += 1
        view = self.state.observe(None)
        frame = self.frame(diff(self.view, view), view)
        self.view = view
        self.events.append(
            sse("frame", {"moves": public_moves(step), "frame": frame}, self.steps)
        )

    def frame(self, ops: list[Any], view: JSON) -> dict[str, JSON]:
        """The frame of the state now, ``view`` its spectator's view; its running score
        is the public one (score_now reads the spectator's view only)."""
        assert self.state is not None
        frame: dict[str, JSON] = {
            "to_move": list(self.state.to_move()), "over": self.state.is_over(),
            "ops": [ops], "moves": [],
        }  # fmt: skip
        if self.score_now is not None:
            frame["score"] = self.score_now(view)
        if self.texts:
            frame["text"] = [self.state.render(None)]
        return frame

    async def next(self) -> None:
        """Return once there may be more to send: one watcher reads the file, the others
        wait for what it finds (or a keep-alive's time)."""
        if self.polling:
            with anyio.move_on_after(KEEPALIVE_S):
                await self.changed.wait()
            return
        self.polling = True
        changed = True  # a poller that leaves hands the reading over: wake the others
        try:
            await anyio.sleep(max(0.0, self.polled_at + POLL_S - time.monotonic()))
            # in a thread: a watcher joining late re-simulates every step so far, which
            # must not hold up the server's other requests
            changed = await anyio.to_thread.run_sync(self.poll)
            self.polled_at = time.monotonic()
        finally:
            self.polling = False
            if changed:
                self.changed.set()
                self.changed = anyio.Event()


class Hub:
    """The tails being watched, by file: opened for the first watcher, closed after the
    last one leaves."""

    def __init__(self, delay: int = 0) -> None:
        self.delay = delay
        self.tails: dict[Path, Tail] = {}

    async def watch(self, path: Path, after: int = -1) -> AsyncIterator[str]:
        """The events of ``path`` after event ``after`` (a reconnecting browser's last),
        then ``end`` (or ``unavailable`` if the file cannot be read)."""
        tail = self.tails.get(path)
        if tail is None:
            try:
                tail = self.tails[path] = Tail(path, self.delay)
            except OSError as e:
                yield unavailable(f"its replay cannot be opened ({e.strerror or e})")
                return
        tail.watchers += 1
        try:
            async for text in _follow(tail, after + 1):
                yield text
        finally:
            tail.watchers -= 1
            if tail.watchers == 0:
                tail.close()
                del self.tails[path]


async def _follow(tail: Tail, sent: int) -> AsyncIterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    if tail.polled_at == 0.0:
        await tail.next()
    said = time.monotonic()
    while True:
        visible = tail.visible()
        if sent < visible:
            yield "".join(tail.events[sent:visible])
            sent, said = visible, time.monotonic()
            continue
        if tail.problem:
            yield unavailable(tail.problem)
            return
        if tail.ended:
            yield sse("end", {"frames": len(tail.events)})
            return
        if time.monotonic() - said >= KEEPALIVE_S:
            yield ": still here\n\n"
            said = time.monotonic()
        await tail.next()


def unavailable(reason: str) -> str:
    return sse("unavailable", {"reason": f"live view not available for this match: {reason}"})


async def single(text: str) -> AsyncIterator[str]:
    """A stream of one event (``end`` or ``unavailable``), for matches not being played."""
    yield f"retry: {RETRY_MS}\n\n"
    yield text


__all__ = ["Hub", "Tail", "public_moves", "single", "sse", "unavailable"]
