"""The store's records (owners, bots, matches, results) and how rows become them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from niwa.ladder.balance import MatchBalance
from niwa.ladder.db import Row


@dataclass(frozen=True)
class Owner:
    id: int
    name: str
    is_admin: bool


@dataclass(frozen=True)
class Bot:
    id: int
    name: str
    version: str
    game: str
    owner_id: int
    owner: str
    source: str  # "builtin:NAME" or "archive"
    archive_hash: str | None
    status: str
    reason: str
    elo: float
    games: int
    wins: int

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class Match:
    id: int
    game: str
    game_version: str
    kind: str
    seed: int
    options: dict[str, Any]
    players: int
    state: str
    attempts: int
    duplicate_group: int | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    wall_s: float | None
    decisions: int | None
    error: str
    replay_sha256: str | None
    seq: int | None
    seats: tuple[int, ...]  # bot id per seat


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot_id: int
    place: int
    score: float
    status: str  # "ok" or "out"
    reason: str = ""  # when out: the failure class (TIMEOUT, CRASHED, ...)
    out_step: int | None = None  # the step it went out at; None: at start-up (or ok)
    detail: str = ""  # the referee's line on what went wrong
    stderr_tail: tuple[str, ...] = ()  # the bot's last stderr lines: its owner's only


@dataclass(frozen=True)
class Finished:
    """What a worker reports for a match that ran to its end."""

    results: tuple[SeatResult, ...]
    decisions: int
    wall_s: float
    replay_sha256: str
    #: The results carry every seat's stderr tail, not only the out seats' (niwa.ladder.tails).
    stderr_kept: bool = False
    #: Its balance figures, from the replay (niwa.ladder.balance_replay); None when the
    #: replay could not give them: a rated match then waits for the backfill.
    balance: MatchBalance | None = None


#: What ladders before schema 3 appended to a seat's reason: its stderr, now private.
OLD_STDERR = " | stderr: "


def seat_result(row: Row) -> SeatResult:
    """A results row; a reason written before schema 3 ("CLASS: detail | stderr: ...")
    is split, and its stderr moved out of the public reason."""
    reason, _, old_tail = str(row["reason"]).partition(OLD_STDERR)
    detail = str(row["detail"])
    if not detail and ": " in reason:  # the old "CLASS: detail"
        reason, _, detail = reason.partition(": ")
    tail = [str(line) for line in json.loads(row["stderr_tail"] or "[]")]
    if not tail and old_tail:
        tail = old_tail.split(" / ")
    return SeatResult(
        seat=int(row["seat"]),
        bot_id=int(row["bot_id"]),
        place=int(row["place"]),
        score=float(row["score"]),
        status=str(row["status"]),
        reason=reason,
        out_step=None if row["out_step"] is None else int(row["out_step"]),
        detail=detail,
        stderr_tail=tuple(tail),
    )


def bot_of(row: Row) -> Bot:
    return Bot(**{**row, "elo": float(row["elo"])})
