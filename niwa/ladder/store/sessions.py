"""Web sessions: an owner signed in on the ladder's pages (:mod:`niwa.web.signin`).

A session is known by the SHA-256 of its cookie, never the cookie itself, so a copy of
the store signs no one in. Each owner keeps at most a few sessions: a new one drops the
oldest beyond the cap. Expired rows are refused at once and removed at the next sign-in.
"""

from __future__ import annotations

from niwa.ladder.records import Owner
from niwa.ladder.store.base import Part


class Sessions(Part):
    """The web_sessions rows."""

    def start_session(
        self, session_hash: str, owner_id: int, now: float, expires_at: float, keep: int
    ) -> None:
        """Record a new session; the owner's oldest beyond ``keep`` and every expired
        session end with it."""
        with self.db.transaction() as db:
            self.end_expired(now)
            db.execute(
                "INSERT INTO web_sessions (session_hash, owner_id, created_at, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (session_hash, owner_id, now, expires_at),
            )
            rows = db.execute(
                "SELECT session_hash FROM web_sessions WHERE owner_id = ? "
                "ORDER BY created_at DESC, session_hash",
                (owner_id,),
            )
            for row in rows[keep:]:
                db.execute("DELETE FROM web_sessions WHERE session_hash = ?",
                           (row["session_hash"],))  # fmt: skip

    def session_owner(self, session_hash: str, now: float) -> Owner | None:
        """The owner of a session that has not expired; None for any other."""
        row = self.db.one(
            "SELECT o.id, o.name, o.is_admin FROM web_sessions s "
            "JOIN owners o ON o.id = s.owner_id "
            "WHERE s.session_hash = ? AND s.expires_at > ?",
            (session_hash, now),
        )
        if row is None:
            return None
        return Owner(int(row["id"]), row["name"], bool(row["is_admin"]))

    def end_expired(self, now: float) -> None:
        self.db.execute("DELETE FROM web_sessions WHERE expires_at <= ?", (now,))

    def end_session(self, session_hash: str) -> None:
        self.db.execute("DELETE FROM web_sessions WHERE session_hash = ?", (session_hash,))

    def session_count(self, owner_id: int) -> int:
        return int(
            self.db.scalar("SELECT COUNT(*) FROM web_sessions WHERE owner_id = ?", (owner_id,))
        )
