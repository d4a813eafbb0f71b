"""Bots: each name@version a ladder runs, in one game, with its status and rating."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from niwa.bots.manifest import name_problem, version_problem
from niwa.ladder import elo, skill
from niwa.ladder.records import Bot, bot_of
from niwa.ladder.store.base import (
    ACTIVE,
    HUMAN_SOURCE,
    PENDING,
    SUPERSEDED,
    SYSTEM_OWNER,
    Part,
    StoreError,
)
from niwa.ladder.store.owners import is_reserved

_BOT_COLUMNS = """b.id, b.name, b.version, b.game, b.owner_id, o.name AS owner, b.source,
    b.archive_hash, b.status, b.reason,
    COALESCE(r.elo, ?) AS elo, COALESCE(r.games, 0) AS games, COALESCE(r.wins, 0) AS wins"""
_BOT_FROM = """FROM bots b JOIN owners o ON o.id = b.owner_id
    LEFT JOIN ratings r ON r.bot_id = b.id"""


class Bots(Part):
    """The bots' rows (and the rating row an active bot gets)."""

    def check_new_bot(self, name: str, version: str, games: Sequence[str], owner_id: int) -> None:
        """Refuse (StoreError, naming the fix) a bot ``owner_id`` may not add: a bad or
        reserved name, a name another owner has (in any game, in any case), a version
        already on one of ``games``."""
        for problem in (name_problem(name), version_problem(version)):
            if problem:
                raise StoreError(f"bot {name[:80]!r}: {problem}")
        owner = self.db.one("SELECT name FROM owners WHERE id = ?", (owner_id,))
        if owner is None:
            raise StoreError(f"no owner has id {owner_id}")
        if is_reserved(name) and owner["name"] != SYSTEM_OWNER:
            raise StoreError(
                f"bot name {name!r} is reserved for niwa's built-in bots: rename your bot"
            )
        rows = self.db.execute(
            "SELECT DISTINCT b.name, b.owner_id, o.name AS owner FROM bots b "
            "JOIN owners o ON o.id = b.owner_id WHERE lower(b.name) = lower(?)",
            (name,),
        )
        for row in rows:
            if row["owner_id"] != owner_id:
                raise StoreError(f"bot name {name!r} belongs to {row['owner']}: rename your bot")
            if row["name"] != name:
                raise StoreError(
                    f"you already have a bot named {row['name']!r}: spell {name!r} the same way"
                )
        for game in games:
            if self.db.one(
                "SELECT id FROM bots WHERE lower(name) = lower(?) AND version = ? AND game = ?",
                (name, version, game),
            ):
                raise StoreError(
                    f"{name}@{version} is already on the {game} ladder: raise the version "
                    "in bot.toml"
                )

    def add_bot(
        self,
        name: str,
        version: str,
        game: str,
        owner_id: int,
        source: str,
        archive_hash: str | None,
        status: str = PENDING,
    ) -> Bot:
        with self.db.transaction() as db:
            self.check_new_bot(name, version, [game], owner_id)
            row = db.one(
                "INSERT INTO bots (name, version, game, owner_id, source, archive_hash, status,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING "
                "RETURNING id",
                (name, version, game, owner_id, source, archive_hash, status, time.time()),
            )
            if row is None:  # added by another node since check_new_bot looked
                raise StoreError(
                    f"{name}@{version} is already on the {game} ladder: raise the version "
                    "in bot.toml"
                )
            bot_id = int(row["id"])
            if status == ACTIVE:
                self._activate(bot_id)
        return self.bot(bot_id)

    def archive_in_use(self, archive_hash: str) -> bool:
        return (
            self.db.one("SELECT id FROM bots WHERE archive_hash = ? LIMIT 1", (archive_hash,))
            is not None
        )

    def archive_hashes(self) -> set[str]:
        rows = self.db.execute(
            "SELECT DISTINCT archive_hash FROM bots WHERE archive_hash IS NOT NULL"
        )
        return {str(r["archive_hash"]) for r in rows}

    def bot(self, bot_id: int) -> Bot:
        row = self.db.one(f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.id = ?", (elo.BASE, bot_id))
        if row is None:
            raise StoreError(f"no bot has id {bot_id}: see `niwa ladder leaderboard`")
        return bot_of(row)

    def find_builtin(self, source: str, name: str, version: str, game: str) -> Bot | None:
        """The system owner's row for built-in ``source`` listed as ``name``: found by
        who owns it and what it runs, never by a name alone."""
        row = self.db.one(
            f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.source = ? AND o.name = ? "
            "AND b.name = ? AND b.version = ? AND b.game = ?",
            (elo.BASE, source, SYSTEM_OWNER, name, version, game),
        )
        return None if row is None else bot_of(row)

    def bots(
        self, game: str | None = None, statuses: Iterable[str] | None = None,
        owner_id: int | None = None,
    ) -> list[Bot]:  # fmt: skip
        where, params = ["1 = 1"], list[Any]([elo.BASE])
        if owner_id is not None:
            where.append("b.owner_id = ?")
            params.append(owner_id)
        if game:
            where.append("b.game = ?")
            params.append(game)
        wanted = list(statuses or [])
        if wanted:
            where.append(f"b.status IN ({', '.join('?' for _ in wanted)})")
            params.extend(wanted)
        rows = self.db.execute(
            f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE {' AND '.join(where)} "
            "ORDER BY b.game, b.name, b.id",
            params,
        )
        return [bot_of(r) for r in rows]

    def ratings(self, game: str) -> list[tuple[int, float, int, bool, bool]]:
        """(id, running Elo, games, built-in, provisional) of the active bots of
        ``game``, in the order of :meth:`bots`: what the scheduler needs, in one query,
        without building every :class:`Bot`. Built-in: the system owner's (not a
        submitted bot). Provisional: :attr:`niwa.ladder.skill.Skill.provisional`, a bot
        without a ``skills`` row being new. The human row (a person's challenges,
        rated) is never among them: only a person seats it."""
        rows = self.db.execute(
            "SELECT b.id, COALESCE(r.elo, ?) AS elo, COALESCE(r.games, 0) AS games, "
            "CASE WHEN s.bot_id IS NULL OR (s.sigma_sq > ? AND s.matches < ?) THEN 1 ELSE 0 "
            f"END AS provisional, o.name AS owner {_BOT_FROM} "
            "LEFT JOIN skills s ON s.bot_id = b.id "
            "WHERE b.game = ? AND b.status = ? AND b.source <> ? ORDER BY b.game, b.name, b.id",
            (elo.BASE, skill.PROVISIONAL_SIGMA**2, skill.PROVISIONAL_MATCHES, game, ACTIVE,
             HUMAN_SOURCE),
        )  # fmt: skip
        return [
            (
                int(r["id"]), float(r["elo"]), int(r["games"]), r["owner"] == SYSTEM_OWNER,
                bool(r["provisional"]),
            )
            for r in rows
        ]  # fmt: skip

    def set_bot_status(self, bot_id: int, status: str, reason: str = "") -> None:
        with self.db.transaction() as db:
            db.execute(
                "UPDATE bots SET status = ?, reason = ? WHERE id = ?", (status, reason, bot_id)
            )
            if status == ACTIVE:
                self._activate(bot_id)

    def _activate(self, bot_id: int) -> None:
        """Give the bot a rating row and retire its older versions (kept for history)."""
        row = self.db.one("SELECT name, game FROM bots WHERE id = ?", (bot_id,))
        assert row is not None
        self.db.execute(
            "UPDATE bots SET status = ?, reason = ? WHERE name = ? AND game = ? AND id <> ? "
            "AND status = ?",
            (SUPERSEDED, f"replaced by bot {bot_id}", row["name"], row["game"], bot_id, ACTIVE),
        )
        self.db.execute(
            "INSERT INTO ratings (bot_id, game, elo, games, wins) VALUES (?, ?, ?, 0, 0) "
            "ON CONFLICT (bot_id) DO NOTHING",
            (bot_id, row["game"], elo.BASE),
        )

    def games_with_bots(self) -> list[str]:
        """The games some bot was submitted (or added as sparring partner) for, A to Z."""
        rows = self.db.execute("SELECT DISTINCT game FROM bots ORDER BY game")
        return [str(r["game"]) for r in rows]
