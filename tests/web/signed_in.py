"""The ladder's pages with sign-in, over a real SQLite store, for the sign-in and upload
tests: the app as ``niwa ladder web`` builds it (a read-only connection for the pages,
one that may write for owners), and signing in the way a browser does."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from niwa.ladder.store import Store
from niwa.web.app import create_app
from niwa.web.server import open_read_only, open_writer
from niwa.web.signin import COOKIE, SigninLimits

ORIGIN = "http://testserver"  # the TestClient's own


@dataclass
class Ladder:
    """A store with owners, and where it is."""

    db: Path
    tokens: dict[str, str]  # owner name -> API token


def make_ladder(folder: Path, owners: tuple[str, ...] = ("ada", "bob")) -> Ladder:
    db = folder / "ladder.db"
    store = Store.open(str(db), folder)
    try:
        tokens = {name: store.owners.add_owner(name)[1] for name in owners}
    finally:
        store.close()
    return Ladder(db, tokens)


@contextmanager
def pages(
    ladder: Ladder, limits: SigninLimits | None = None, base_url: str = ORIGIN
) -> Iterator[TestClient]:
    """A client of the pages served over ``ladder`` at ``base_url`` (closed after)."""
    reads, writer = open_read_only(str(ladder.db)), open_writer(str(ladder.db))
    try:
        app = create_app(reads, ["blossom"], writer=writer, signin_limits=limits)
        with TestClient(app, base_url, backend="trio", follow_redirects=False) as client:
            yield client
    finally:
        reads.close()
        writer.close()


def csrf_of(html: str) -> str:
    """The CSRF field's value on a page."""
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def sign_in(client: TestClient, token: str) -> str:
    """Sign in as a browser does (the form, then its POST); the session cookie."""
    form = client.get("/signin")
    assert form.status_code == 200, form.text
    answer = client.post(
        "/signin", data={"csrf": csrf_of(form.text), "token": token, "next": "/"},
        headers={"origin": ORIGIN},
    )  # fmt: skip
    assert answer.status_code == 303, answer.text
    return str(client.cookies[COOKIE])
