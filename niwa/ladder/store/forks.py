"""Forked matches (schema 10): where each starts and who asked for it. The match itself
is an ordinary row of ``matches`` (kind ``forked``); ``match_forks`` keeps its origin
apart from the game's options, which the referee hands to the game."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from niwa.ladder.db import Database
from niwa.ladder.store.base import FORKED, QUEUED, RUNNING, Part
from niwa.ladder.store.matches import Matches


@dataclass(frozen=True)
class Fork:
    """Match ``match_id`` plays on from step ``step`` of match ``origin_id`` with
    ``owner_id``'s other bot in seat ``seat``."""

    match_id: int
    origin_id: int
    step: int
    seat: int
    owner_id: int
    created_at: float


class Forks(Part):
    def __init__(self, db: Database, matches: Matches) -> None:
        super().__init__(db)
        self.matches = matches

    def queue_fork(
        self, origin_id: int, step: int, seat: int, owner_id: int,
        game: str, game_version: str, seats: Sequence[int], seed: int,
    ) -> int:  # fmt: skip
        """Queue the forked match and record its origin, together."""
        with self.db.transaction() as db:
            match_id = self.matches.queue_match(
                game, game_version, seats, seed, kind=FORKED
            )
            db.execute(
                "INSERT INTO match_forks (match_id, origin_id, step, seat, owner_id, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, origin_id, step, seat, owner_id, time.time()),
            )
        return match_id

    def fork(self, match_id: int) -> Fork | None:
        """The origin of match ``match_id``; None: it is not a fork."""
        row = self.db.one("SELECT * FROM match_forks WHERE match_id = ?", (match_id,))
        return None if row is None else Fork(**row)

    def forks_of(self, match_ids: Collection[int]) -> dict[int, Fork]:
        """The origin of each fork among ``match_ids`` (one query, for a page's list)."""
        if not match_ids:
            return {}
        marks = ", ".join("?" for _ in match_ids)
        rows = self.db.execute(
            f"SELECT * FROM match_forks WHERE match_id IN ({marks})", list(match_ids)
        )
        return {int(r["match_id"]): Fork(**r) for r in rows}

    def pending(self, owner_id: int) -> int:
        """``owner_id``'s forks queued or running."""
        return int(self.db.scalar(
            "SELECT COUNT(*) FROM match_forks f JOIN matches m ON m.id = f.match_id "
            "WHERE f.owner_id = ? AND m.state IN (?, ?)",
            (owner_id, QUEUED, RUNNING),
        ))  # fmt: skip

    def since(self, owner_id: int, moment: float) -> int:
        """``owner_id``'s forks asked for since ``moment`` (the owner index's range)."""
        return int(self.db.scalar(
            "SELECT COUNT(*) FROM match_forks WHERE owner_id = ? AND created_at >= ?",
            (owner_id, moment),
        ))  # fmt: skip
