"""Writing a replay file: whole lines, step lines batched and flushed on a timer."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType

from niwa.engine import JSON, canonical_json
from niwa.referee.replay.model import FLUSH_INTERVAL_S, Header, ResultLine, Step


class ReplayWriter:
    """Writes a replay in whole lines: the header and the result at once, step lines
    in batches at least every ``flush_interval_s`` (a write per step costs more than
    the rest of the step), so a killed referee leaves a readable prefix missing at
    most the steps of the last interval. :meth:`flush` writes what is pending (the
    referee also calls it while it waits for a bot)."""

    def __init__(self, path: str | Path, flush_interval_s: float = FLUSH_INTERVAL_S) -> None:
        self.path = Path(path)
        self.flush_interval_s = flush_interval_s
        # A bare descriptor, unbuffered: every write is whole lines, so the file never
        # ends mid-line because a buffer filled up (and no file object per match).
        self._fd: int | None = os.open(
            self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666
        )
        self._pending: list[str] = []
        self._flushed_at = time.monotonic()

    def _line(self, obj: dict[str, JSON]) -> None:
        self._pending.append(canonical_json(obj) + "\n")

    def flush(self) -> None:
        """Write every pending line now."""
        if self._pending:
            data = memoryview("".join(self._pending).encode())
            self._pending.clear()
            while data:
                if self._fd is None:
                    raise ValueError(f"{self.path}: the replay writer is closed")
                data = data[os.write(self._fd, data):]
            # Timed from the last write, not the last call: a step after a quiet
            # interval (a bot thinking) is written at once, for the live view.
            self._flushed_at = time.monotonic()

    def header(self, header: Header) -> None:
        self._line(header.to_json())
        self.flush()

    def step(self, step: Step) -> None:
        self.step_line(step.line())

    def step_line(self, line: str) -> None:
        """A step already spelled as its line (:meth:`Step.line`, :func:`chance_line`)."""
        self._pending.append(line + "\n")
        if time.monotonic() - self._flushed_at >= self.flush_interval_s:
            self.flush()

    def result(self, result: ResultLine) -> None:
        self._line(result.to_json())
        self.flush()

    def close(self) -> None:
        if self._fd is not None:
            try:
                self.flush()
            finally:
                fd, self._fd = self._fd, None
                os.close(fd)

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


#: Bounds checked while reading, before anything is allocated for what they bound.
