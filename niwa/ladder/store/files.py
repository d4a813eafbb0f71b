"""The data folder's working files, and the blobs every node of a ladder reads
(replays, bot archives) kept in the store itself."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Collection
from pathlib import Path

from niwa.ladder.db import Database
from niwa.ladder.store.base import Part


class Files(Part):
    """Where a node keeps its files, and the store's copy of the shared ones."""

    def __init__(self, db: Database, data_dir: Path) -> None:
        super().__init__(db)
        self.data_dir = data_dir

    def replay_path(self, match_id: int) -> Path:
        """A finished match's replay: only the attempt that was recorded is put here."""
        return self.data_dir / "replays" / f"{match_id}.jsonl"

    def attempt_replay_path(self, match_id: int, attempt: int) -> Path:
        """Where one attempt at a match writes its replay. An attempt dropped after a
        lost lease (played again by the next leader) leaves its file under this name,
        never under :meth:`replay_path`, where it would pass for a damaged replay."""
        return self.data_dir / "replays" / f"{match_id}.attempt{attempt}.jsonl"

    def log_dir(self, match_id: int) -> Path:
        return self.data_dir / "logs" / str(match_id)

    def archive_path(self, archive_hash: str) -> Path:
        return self.data_dir / "archives" / f"{archive_hash}.tar.gz"

    def bot_dir(self, archive_hash: str) -> Path:
        return self.data_dir / "bots" / archive_hash

    def put_blob(self, kind: str, data: bytes) -> str:
        """Keep ``data`` (once: named by its SHA-256, which is returned)."""
        digest = hashlib.sha256(data).hexdigest()
        self.db.execute(
            "INSERT INTO blobs (sha256, kind, size, data) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (sha256) DO NOTHING",
            (digest, kind, len(data), zlib.compress(data, 6)),
        )
        return digest

    def blob(self, sha256: str) -> bytes | None:
        row = self.db.one("SELECT data FROM blobs WHERE sha256 = ?", (sha256,))
        return None if row is None else zlib.decompress(bytes(row["data"]))

    def blob_sizes(self, hashes: Collection[str]) -> dict[str, int]:
        """The size (before compression) of each kept blob among ``hashes``."""
        if not hashes:
            return {}
        marks = ", ".join("?" for _ in hashes)
        rows = self.db.execute(
            f"SELECT sha256, size FROM blobs WHERE sha256 IN ({marks})", list(hashes)
        )
        return {str(r["sha256"]): int(r["size"]) for r in rows}
