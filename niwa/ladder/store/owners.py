"""Owners: who submits bots, known by a token kept hashed; and the rules for names."""

from __future__ import annotations

import re
import time

from niwa.bots import builtin
from niwa.ladder import auth
from niwa.ladder.records import Owner
from niwa.ladder.store.base import SYSTEM_OWNER, Part, StoreError

#: Owner names: lowercase ASCII only, so that no two look alike (no case or Unicode
#: confusables); compared case-insensitively with the names of older ladders too.
OWNER_NAME_CHARS = 32
_OWNER_NAME = re.compile(rf"[a-z0-9][a-z0-9_-]{{0,{OWNER_NAME_CHARS - 1}}}")
#: Bot names only the system owner may use: the built-ins, their numbered copies
#: (the demo's ``random-2``), and "builtin"/"niwa"; compared case-insensitively.
# "human": the row a person plays a challenge as (niwa.ladder.challenges)
_RESERVED_WORDS = [*builtin.names(), "builtin", "human", SYSTEM_OWNER]
_RESERVED = re.compile(
    "(?:" + "|".join(map(re.escape, _RESERVED_WORDS)) + ")(?:-[0-9]+)?",
    re.IGNORECASE | re.ASCII,
)


def owner_name_problem(name: str) -> str:
    """Why ``name`` cannot be a new owner's name ("" if it can)."""
    if _OWNER_NAME.fullmatch(name):
        return ""
    return (
        f"owner name {name[:80]!r}: use 1-{OWNER_NAME_CHARS} lowercase ASCII letters, "
        "digits, - and _, starting with a letter or digit"
    )


def is_reserved(bot_name: str) -> bool:
    """A name kept for niwa's built-in bots."""
    return _RESERVED.fullmatch(bot_name) is not None


class Owners(Part):
    """The owners' rows."""

    def add_owner(self, name: str, admin: bool = False) -> tuple[Owner, str]:
        """Create an owner; return it with its token (shown once, stored hashed)."""
        problem = owner_name_problem(name)
        if problem:
            raise StoreError(problem)
        token = auth.new_token()
        taken = StoreError(f"owner {name!r} exists already: pick another name")
        with self.db.transaction() as db:
            if db.one("SELECT id FROM owners WHERE lower(name) = lower(?)", (name,)):
                raise taken
            # DO NOTHING, not a unique violation: another node adding the same name at
            # once leaves this transaction usable (PostgreSQL aborts it on an error).
            row = db.one(
                "INSERT INTO owners (name, token_hash, is_admin, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                (name, auth.hash_token(token), int(admin), time.time()),
            )
        if row is None:
            raise taken
        return Owner(int(row["id"]), name, admin), token

    def owner_for_token(self, token: str) -> Owner | None:
        row = self.db.one(
            "SELECT id, name, is_admin FROM owners WHERE token_hash = ?",
            (auth.hash_token(token),),
        )
        if row is None:
            return None
        return Owner(int(row["id"]), row["name"], bool(row["is_admin"]))

    def system_owner(self) -> Owner:
        """The owner of the built-in bots (created on first use, its token discarded)."""
        row = self.db.one("SELECT id, name, is_admin FROM owners WHERE name = ?", (SYSTEM_OWNER,))
        if row is None:
            try:
                return self.add_owner(SYSTEM_OWNER, admin=True)[0]
            except StoreError:  # created meanwhile by another node: read its row
                return self.system_owner()
        return Owner(int(row["id"]), row["name"], bool(row["is_admin"]))

    def owner_usage(self, owner_id: int) -> tuple[int, set[str]]:
        """What counts against an owner's quota: their bot versions (a name@version in
        several games counts once) and the archives they are stored from."""
        rows = self.db.execute(
            "SELECT name, version, archive_hash FROM bots WHERE owner_id = ?", (owner_id,)
        )
        versions = {(r["name"].lower(), r["version"]) for r in rows}
        return len(versions), {str(r["archive_hash"]) for r in rows if r["archive_hash"]}
