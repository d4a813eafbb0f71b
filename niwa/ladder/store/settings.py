"""Settings an admin may change while the ladder runs (quotas), kept in the store."""

from __future__ import annotations

from niwa.ladder.store.base import Part


class Settings(Part):
    """Key -> value, as text."""

    def setting(self, key: str) -> str | None:
        row = self.db.one("SELECT value FROM settings WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def int_setting(self, key: str, default: int) -> int:
        """A whole-number setting an admin keeps in the store; ``default`` if never set."""
        value = self.setting(key)
        return default if value is None else int(value)

    def set_setting(self, key: str, value: str) -> None:
        # one statement: two nodes setting a key at once both succeed (the last wins)
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
