"""Make a store of today's schema look like one an older niwa left: undo the migrations
after a version, newest first, by what each statement made (its tables, indexes and
columns). The rows today's code wrote stay, so a test can fill a store with today's
helpers and then check that the migrations bring such a store up in place."""

from __future__ import annotations

import re

from niwa.ladder import schema
from niwa.ladder.db import Database

_TABLE = re.compile(r"^\s*CREATE TABLE (\w+)", re.IGNORECASE)
_INDEX = re.compile(r"^\s*CREATE (?:UNIQUE )?INDEX (\w+)", re.IGNORECASE)
_COLUMN = re.compile(r"^\s*ALTER TABLE (\w+) ADD COLUMN (\w+)", re.IGNORECASE)


def rewind(db: Database, version: int) -> None:
    """Undo migrations ``version + 1`` to the newest (rows they inserted into older
    tables are left as they are) and record ``version`` as the store's schema."""
    with db.transaction() as tx:
        for statements in reversed(schema.MIGRATIONS[version:]):
            for statement in reversed(statements):
                if m := _TABLE.match(statement):
                    tx.execute(f"DROP TABLE {m.group(1)}")
                elif m := _INDEX.match(statement):
                    tx.execute(f"DROP INDEX IF EXISTS {m.group(1)}")
                elif m := _COLUMN.match(statement):
                    tx.execute(f"ALTER TABLE {m.group(1)} DROP COLUMN {m.group(2)}")
        tx.execute("DELETE FROM schema_version WHERE version > ?", (version,))
