"""A tournament's progress file (``--progress FILE``, ``--resume FILE``): JSON lines, a
header with the arguments that decide which games are played, then one line per
finished game, each appended and fsynced as the game ends, so that a killed run loses
at most the games in flight.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from niwa.cli import UsageError
from niwa.series.games import FirstFailure, GameJob, GameRecord, SeatRecord

VERSION = 1


class Progress:
    """The file, open for appending; ``done`` maps a game's index to its record, in
    the order the games finished."""

    def __init__(self, path: Path, header: dict[str, Any], resume: bool) -> None:
        self.path = path
        self.done: dict[int, GameRecord] = {}
        self.header = dict(header, type="tournament", version=VERSION)
        if resume:
            self._read()
        elif path.exists() and path.stat().st_size > 0:
            raise UsageError(f"--progress {path}: the file already holds a tournament's "
                             f"progress: continue it with --resume {path}, or remove it")
        self.stream = path.open("a", encoding="utf-8")
        if not resume:
            self._append(self.header)

    def _read(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--resume {self.path}: {e.strerror}: start a tournament "
                             f"with --progress {self.path} first") from None
        complete = text[: text.rfind("\n") + 1]  # a line cut by a kill is dropped
        if len(complete) != len(text):
            with self.path.open("r+b") as f:
                f.truncate(len(complete.encode("utf-8")))
        lines = [json.loads(line) for line in complete.splitlines() if line.strip()]
        if not lines or lines[0].get("type") != "tournament":
            raise UsageError(f"--resume {self.path}: not a niwa tournament progress file")
        saved = lines[0]
        for key in ("seed", "seeding"):  # None: as the file has it (drawn or read then)
            if self.header.get(key) is None:
                self.header[key] = saved.get(key)
        for key, now in self.header.items():
            if saved.get(key) != now:
                raise UsageError(f"--resume {self.path}: the tournament there has {key} "
                                 f"{_shown(saved.get(key))}, not {_shown(now)}: resume it "
                                 "with the same arguments, or start a new --progress file")
        for line in lines[1:]:
            record = record_from_json(line, saved)
            self.done[record.job.index] = record

    def _append(self, obj: Mapping[str, Any]) -> None:
        self.stream.write(json.dumps(obj) + "\n")
        self.stream.flush()
        os.fsync(self.stream.fileno())

    def add(self, line: Mapping[str, Any]) -> None:
        """A finished game's JSON line."""
        self._append(line)

    def close(self) -> None:
        self.stream.close()


def _shown(value: Any) -> str:
    return json.dumps(value)


def record_from_json(line: Mapping[str, Any], header: Mapping[str, Any]) -> GameRecord:
    """A game's record again, from its JSON line (:meth:`GameRecord.to_json`)."""
    seats = [
        SeatRecord(**{**s, "first_failures": {
            k: FirstFailure(**v) for k, v in s.get("first_failures", {}).items()}})
        for s in line["seats"]
    ]
    job = GameJob(
        index=line["index"], game=header["game"], bots=tuple(s.spec for s in seats),
        ids=tuple(s.bot for s in seats), seed=line["seed"], time_control=header["time"],
        replay=None if line.get("replay") is None else Path(line["replay"]),
        round=line["round"],
    )
    return GameRecord(job, seats, line["decisions"], line["wall_s"], line["match_id"])
