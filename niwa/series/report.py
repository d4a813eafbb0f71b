"""What a series prints: standings per bot, the live display, the OUT notes, JSON lines."""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from niwa.ladder.elo import fmt_elo, pair_score
from niwa.referee.failures import SeatStatus
from niwa.referee.text import printable
from niwa.series.games import FAILURES, GameRecord, out_says_it
from niwa.series.names import shown


def failure_text(kind: str, count: int, at: int | None, detail: str, where: str = "") -> str:
    """``ILLEGAL x2, first at step 12: index 7 out of range (3 legal actions)``;
    ``where`` (``in game 3 (seed 5) ``) goes before the step."""
    when = "start-up" if at is None else f"step {at}"
    return f"{kind} x{count}, first {where}at {when}: {printable(detail, DETAIL_SHOWN)}"


@dataclass(frozen=True)
class SeriesFailure:
    """The first failure of a class a bot had in a series (the first reported: games
    finish out of order)."""

    game: int
    seed: int
    at: int | None
    detail: str

#: How much of a bot's name, a failure detail or a stderr line a line shows.
NAME_SHOWN = 40
DETAIL_SHOWN = 300
#: Lines of a seat's stderr shown under its OUT line.
STDERR_SHOWN = 5
#: Shortest time between two redraws of the live table on a terminal.
REDRAW_S = 0.25


@dataclass
class BotLine:
    """One bot's running totals over the games it played (each seat counts)."""

    games: int = 0
    wins: int = 0
    place_sum: float = 0.0
    score_sum: float = 0.0
    points: float = 0.0
    outs: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    first_failures: dict[str, SeriesFailure] = field(default_factory=dict)

    def failure_lines(self) -> list[str]:
        """One line per class of failure: the count and the first one's detail."""
        out = []
        for kind in FAILURES:
            first = self.first_failures.get(kind)
            if first is not None:
                where = f"in game {first.game} (seed {first.seed}) "
                out.append(failure_text(kind, self.failures.get(kind, 0), first.at,
                                        first.detail, where))
        return out

    def to_json(self) -> dict[str, Any]:
        n = max(self.games, 1)
        return {
            "games": self.games,
            "wins": self.wins,
            "points": self.points,
            "mean_place": self.place_sum / n,
            "mean_score": self.score_sum / n,
            "outs": self.outs,
            "failures": {k: self.failures.get(k, 0) for k in FAILURES},
            "first_failures": {k: asdict(v) for k, v in self.first_failures.items()},
        }


def short(name: str) -> str:
    """A bot's name for a table column (:func:`niwa.series.names.shown`)."""
    return shown(name, NAME_SHOWN)


def points(place: int, places: Sequence[int]) -> float:
    """A seat's share of the other seats it placed ahead of, a shared place counting
    half: 1 / ½ / 0 in a two-player game."""
    others = len(places) - 1
    if others == 0:
        return 0.0
    ahead = sum(pair_score(place, p) for p in places)
    return (ahead - 0.5) / others  # the seat's own place counted ½ above


class Standings:
    """Running totals per bot, in the order the bots were given."""

    def __init__(self, bots: Sequence[str]) -> None:
        self.lines: dict[str, BotLine] = {b: BotLine() for b in bots}
        self.out_shown: set[str] = set()

    def add(self, record: GameRecord) -> list[str]:
        """Count a game; return the notes to print: a bot's first failure of each
        class, with its detail, and its first OUT, with the end of its stderr (bot
        text escaped)."""
        notes: list[str] = []
        places = record.places()
        job = record.job
        for s in record.seats:
            line = self.lines.setdefault(s.bot, BotLine())
            line.games += 1
            line.wins += s.place == 0
            line.place_sum += s.place + 1
            line.score_sum += s.score
            line.points += points(s.place, places)
            for kind, n in s.failures.items():
                line.failures[kind] = line.failures.get(kind, 0) + n
            for kind, first in s.first_failures.items():
                if kind in line.first_failures:
                    continue
                line.first_failures[kind] = SeriesFailure(
                    job.index, job.seed, first.at, first.detail)
                if not out_says_it(kind, s.failures.get(kind, 0), first, s):
                    when = "start-up" if first.at is None else f"step {first.at}"
                    notes.append(
                        f"{short(s.bot)}: first {kind} in game {job.index} "
                        f"(seed {job.seed}) at {when}: {printable(first.detail, DETAIL_SHOWN)}"
                    )
            if s.status != SeatStatus.OUT:
                continue
            line.outs += 1
            if s.bot in self.out_shown:
                continue
            self.out_shown.add(s.bot)
            when = "start-up" if s.at is None else f"step {s.at}"
            notes.append(
                f"{short(s.bot)} OUT in game {record.job.index} (seed "
                f"{record.job.seed}): {s.reason} at {when}: {printable(s.detail, DETAIL_SHOWN)}"
            )
            tail = [ln for ln in s.stderr_tail if ln.strip()][-STDERR_SHOWN:]
            notes += [f"       | {printable(text, DETAIL_SHOWN)}" for text in tail]
        return notes

    def failure_lines(self) -> list[str]:
        """Under the table: each bot's failures by class, with the first detail; none
        when no bot failed."""
        rows = [f"  {short(bot)}: {text}"
                for bot, line in self.lines.items() for text in line.failure_lines()]
        return ["failures (count, and the first reported):", *rows] if rows else []

    def table(self) -> list[str]:
        head = f"{'bot':<{NAME_SHOWN}} {'games':>6} {'wins':>5} {'place':>6} {'score':>8}"
        rows = [head + "  " + " ".join(f"{k[:7]:>7}" for k in FAILURES)]
        for bot, line in self.lines.items():
            n = max(line.games, 1)
            fails = " ".join(f"{line.failures.get(k, 0):>7}" for k in FAILURES)
            rows.append(
                f"{short(bot):<{NAME_SHOWN}} {line.games:>6} {line.wins:>5} "
                f"{line.place_sum / n:>6.2f} {line.score_sum / n:>8.2f}  {fails}"
            )
        return rows


def progress(done: int, total: int, started: float) -> str:
    """``games 40/200, 31.5/min, ETA 5m04s``."""
    elapsed = time.monotonic() - started
    rate = done / elapsed * 60 if elapsed > 0 else 0.0
    left = (total - done) / (rate / 60) if rate > 0 else math.inf
    eta = "?" if math.isinf(left) else f"{int(left) // 60}m{int(left) % 60:02d}s"
    return f"games {done}/{total}, {rate:.1f}/min, ETA {eta}"


class Live:
    """The live display: on a terminal the block of lines is redrawn in place (at most
    every ``REDRAW_S``); otherwise each update appends its first line only (the
    progress line), and the whole block is printed at the end."""

    def __init__(self, out: TextIO, tty: bool | None = None) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.drawn = 0
        self.last = 0.0

    def _erase(self) -> None:
        if self.tty and self.drawn:
            self.out.write(f"\x1b[{self.drawn}F\x1b[J")
            self.drawn = 0

    def note(self, lines: Sequence[str]) -> None:
        """Lines that stay (above the table on a terminal)."""
        if not lines:
            return
        self._erase()
        for line in lines:
            print(line, file=self.out)
        self.last = 0.0  # the table was erased: draw it again at the next update
        self.out.flush()

    def update(self, block: Sequence[str], final: bool = False) -> None:
        if final:
            self._erase()
            for line in block:
                print(line, file=self.out)
            self.out.flush()
            return
        if not self.tty:
            print(block[0], file=self.out, flush=True)
            return
        now = time.monotonic()
        if now - self.last < REDRAW_S:
            return
        self.last = now
        self._erase()
        for line in block:
            print(line, file=self.out)
        self.drawn = len(block)
        self.out.flush()


class JsonLines:
    """``--json FILE``: one JSON object per line, flushed as written; ``-`` is stdout."""

    def __init__(self, target: str | None) -> None:
        self.stream: TextIO | None = None
        self.owned = False
        if target == "-":
            self.stream = sys.stdout
        elif target is not None:
            self.stream = Path(target).open("w", encoding="utf-8")  # noqa: SIM115
            self.owned = True

    def write(self, obj: dict[str, Any]) -> None:
        if self.stream is not None:
            self.stream.write(json.dumps(obj, allow_nan=False, default=_finite) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.owned and self.stream is not None:
            self.stream.close()


def _finite(value: object) -> object:
    raise TypeError(f"not JSON: {type(value).__name__}")


def json_number(x: float) -> float | str:
    """A float for JSON: infinities as the strings "inf" / "-inf" (JSON has none)."""
    return fmt_elo(x).lstrip("+") if math.isinf(x) else x
