"""A PostgreSQL store backed up with ``pg_dump`` and restored with ``pg_restore`` (the
commands of docs/deploy.md) is the same store: rows, replays and archives."""

from __future__ import annotations

import subprocess
from pathlib import Path

from niwa.ladder.db import Database
from niwa.ladder.reads import Reads
from niwa.ladder.store import Store
from tests.ladder.test_replay_integrity import REPLAY, finished_match_at
from tests.ladder.test_upgrade import rows
from tests.postgres import Server


def test_a_dump_restored_into_a_new_database_is_the_same_store(
    postgres_server: Server, tmp_path: Path
) -> None:
    url = postgres_server.database()
    match_id = finished_match_at(url, tmp_path / "node")
    db = Database.open(url)
    before = rows(db)
    db.close()
    dump = tmp_path / "ladder.dump"
    tools = postgres_server.bin_dir
    subprocess.run([str(tools / "pg_dump"), "--format=custom", f"--file={dump}", url],
                   check=True, timeout=120)  # fmt: skip
    restored = postgres_server.database(template="template0")
    subprocess.run([str(tools / "pg_restore"), "--no-owner", f"--dbname={restored}", str(dump)],
                   check=True, timeout=120)  # fmt: skip
    again = Store.open(restored, tmp_path / "new-node")  # another node: no files of its own
    assert rows(again.db) == before and before["matches"]
    assert Reads(again).replay(match_id).content == REPLAY
    again.close()
