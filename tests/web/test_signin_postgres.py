"""Sign-in on a PostgreSQL store: the sessions are in the store, so two web processes
of one store (docs/deploy.md) know each other's; a web front whose role may only read is
refused at start with the fix, not at an owner's first sign-in."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from starlette.testclient import TestClient

from niwa.ladder.db import DatabaseError
from niwa.ladder.store import Store
from niwa.web.app import create_app
from niwa.web.server import open_read_only, open_writer
from niwa.web.signin import COOKIE
from tests.postgres import Server
from tests.web.signed_in import sign_in


def web_front(url: str, data: Path) -> tuple[TestClient, list[Store]]:
    stores = [open_read_only(url, data), open_writer(url, data)]
    app = create_app(stores[0], ["blossom"], writer=stores[1])
    return TestClient(app, backend="trio", follow_redirects=False), stores


def test_a_session_started_on_one_web_front_signs_in_on_another(
    postgres_server: Server, tmp_path: Path
) -> None:
    url = postgres_server.database()
    store = Store.open(url, tmp_path / "runner")
    token = store.owners.add_owner("ada")[1]
    store.close()
    first, first_stores = web_front(url, tmp_path / "one")
    second, second_stores = web_front(url, tmp_path / "two")
    try:
        with first, second:
            cookie = sign_in(first, token)
            second.cookies.set(COOKIE, cookie)
            page = second.get("/")
        assert 'signed in as <strong id="signed-in">ada</strong>' in page.text
    finally:
        for s in (*first_stores, *second_stores):
            s.close()


def test_a_web_front_whose_role_may_only_read_is_refused_naming_no_signin(
    postgres_server: Server, tmp_path: Path
) -> None:
    url = postgres_server.database()
    Store.open(url, tmp_path / "runner").close()  # the runner makes the tables
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DO $$ BEGIN CREATE ROLE ladder_web LOGIN; "
                     "EXCEPTION WHEN duplicate_object THEN NULL; END $$")  # fmt: skip
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO ladder_web")
    reader = url.replace("postgres@", "ladder_web@", 1)
    open_read_only(reader, tmp_path / "web").close()  # enough for anonymous pages
    with pytest.raises(DatabaseError, match="cannot write") as refused:
        open_writer(reader, tmp_path / "web")
    assert "--no-signin" in str(refused.value)
