"""Shared fixtures: a fresh store on a temporary SQLite file, or on each engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from niwa.ladder.store import Store
from tests.postgres import Server

ENGINES = ("sqlite", "postgresql")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(str(tmp_path / "ladder.db"))
    yield s
    s.close()


@pytest.fixture(params=ENGINES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty store's URL on each engine: a SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "ladder.db")
    server: Server = request.getfixturevalue("postgres_server")
    return server.database()


@pytest.fixture
def any_store(db_url: str, tmp_path: Path) -> Iterator[Store]:
    """A fresh store on each engine (its files in ``tmp_path``)."""
    s = Store.open(db_url, tmp_path)
    yield s
    s.close()
