"""Leagues (niwa.ladder.leagues): each game's divisions with their bosses, and the
league each bot has reached. A bot with no row is in the lowest league."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from niwa.ladder.store.base import Part


@dataclass(frozen=True)
class League:
    rank: int  # 0: the lowest
    name: str
    boss_bot_id: int


@dataclass(frozen=True)
class LeagueSetup:
    game: str
    share_above: float  # the share of a bot's games drawn from the league above
    leagues: tuple[League, ...]  # lowest first


class Leagues(Part):
    def setup(self, game: str) -> LeagueSetup | None:
        """``game``'s leagues; None if it has none."""
        row = self.db.one("SELECT share_above FROM league_games WHERE game = ?", (game,))
        if row is None:
            return None
        rows = self.db.execute(
            "SELECT rank, name, boss_bot_id FROM leagues WHERE game = ? ORDER BY rank", (game,)
        )
        leagues = tuple(League(int(r["rank"]), str(r["name"]), int(r["boss_bot_id"])) for r in rows)
        return LeagueSetup(game, float(row["share_above"]), leagues)

    def replace(self, game: str, names_and_bosses: Sequence[tuple[str, int]], share: float) -> None:
        """Set ``game``'s leagues, lowest first; every bot starts again in the lowest."""
        with self.db.transaction():
            self._delete(game)
            self.db.execute(
                "INSERT INTO league_games (game, share_above) VALUES (?, ?)", (game, share)
            )
            self.db.execute_many(
                "INSERT INTO leagues (game, rank, name, boss_bot_id) VALUES (?, ?, ?, ?)",
                [(game, rank, name, boss) for rank, (name, boss) in enumerate(names_and_bosses)],
            )

    def clear(self, game: str) -> None:
        with self.db.transaction():
            self._delete(game)

    def _delete(self, game: str) -> None:
        for table in ("league_members", "leagues", "league_games"):
            self.db.execute(f"DELETE FROM {table} WHERE game = ?", (game,))

    def ranks(self, game: str) -> dict[int, int]:
        """bot id -> the rank of the league it reached (bots absent: the lowest)."""
        rows = self.db.execute("SELECT bot_id, rank FROM league_members WHERE game = ?", (game,))
        return {int(r["bot_id"]): int(r["rank"]) for r in rows}

    def promote(self, game: str, bot_id: int, rank: int) -> None:
        """Move ``bot_id`` up to ``rank`` (never down: a lower rank changes nothing)."""
        self.db.execute(
            "INSERT INTO league_members (bot_id, game, rank, since) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (bot_id) DO UPDATE SET rank = excluded.rank, since = excluded.since "
            "WHERE league_members.rank < excluded.rank",
            (bot_id, game, rank, time.time()),
        )
