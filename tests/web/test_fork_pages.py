"""The fork offer on the pages (niwa.web.fork), over a real SQLite store and the app as
``niwa ladder serve --web`` builds it: the match page's form for the owner of a seat,
its POST signed-in, CSRF-checked and bounded; the bot page's link for its owner."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from niwa.ladder import forks
from niwa.ladder.store import FORKED, Store
from niwa.web.fork import MAX_FORM
from tests.ladder.forking import Forkable, forkable
from tests.web.signed_in import ORIGIN, Ladder, csrf_of, pages, sign_in


@pytest.fixture
def ready(tmp_path: Path) -> tuple[Ladder, Forkable]:
    store = Store.open(str(tmp_path / "ladder.db"), tmp_path)
    try:
        made = forkable(store)
        carol = store.owners.add_owner("carol")[1]
    finally:
        store.close()
    return Ladder(tmp_path / "ladder.db", {**made.tokens, "carol": carol}), made


def forked_matches(ladder: Ladder) -> list[int]:
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        return [m.id for m in store.matches.matches(limit=100) if m.kind == FORKED]
    finally:
        store.close()


def post(client: TestClient, match_id: int, form: dict[str, str], csrf: bool = True) -> int:
    """Send the fork form (with the CSRF token of the match page, or without); the status."""
    if csrf:
        form = {**form, "csrf": csrf_of(client.get(f"/matches/{match_id}").text)}
    answer = client.post(f"/matches/{match_id}/fork", data=form, headers={"origin": ORIGIN})
    return answer.status_code


def form_of(f: Forkable, step: int = 3, seat: int = 0) -> dict[str, str]:
    return {"step": str(step), "seat": str(seat), "bot": str(f.other.id)}


def test_the_owner_of_a_seat_sees_the_form_with_their_other_kept_bots(
    ready: tuple[Ladder, Forkable],
) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        page = client.get(f"/matches/{f.match_id}").text
    assert 'id="fork"' in page and 'src="/static/fork.js"' in page
    assert f'value="{f.other.id}">alpha@2' in page and f'value="{f.old.id}">beta@1' in page
    assert "gamma@1" not in page  # rejected


@pytest.mark.parametrize("who", ["carol", "bob", ""])
def test_nobody_else_sees_the_form(ready: tuple[Ladder, Forkable], who: str) -> None:
    ladder, f = ready  # bob has a seat, but no other bot to put in it
    with pages(ladder) as client:
        if who:
            sign_in(client, ladder.tokens[who])
        assert 'id="fork"' not in client.get(f"/matches/{f.match_id}").text


def test_the_form_queues_the_fork_and_sends_the_browser_to_it(
    ready: tuple[Ladder, Forkable],
) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        page = client.get(f"/matches/{f.match_id}")
        answer = client.post(f"/matches/{f.match_id}/fork",
                             data={**form_of(f), "csrf": csrf_of(page.text)},
                             headers={"origin": ORIGIN})  # fmt: skip
        assert answer.status_code == 303
        assert answer.headers["location"] == f"/matches/{forked_matches(ladder)[0]}"
        shown = client.get(answer.headers["location"]).text
    assert f'fork of <a href="/matches/{f.match_id}">#{f.match_id}</a> at step 3' in shown
    assert 'id="waiting-to-play"' in shown  # and says how to watch it live


def test_a_form_without_its_csrf_token_is_refused(ready: tuple[Ladder, Forkable]) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        assert post(client, f.match_id, form_of(f), csrf=False) == 403
    assert forked_matches(ladder) == []


def test_someone_not_signed_in_is_sent_to_sign_in(ready: tuple[Ladder, Forkable]) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        answer = client.post(f"/matches/{f.match_id}/fork", data=form_of(f))
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/signin?next=/matches/{f.match_id}"


def test_someone_elses_seat_is_forbidden(ready: tuple[Ladder, Forkable]) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        assert post(client, f.match_id, form_of(f, seat=1)) == 403
    assert forked_matches(ladder) == []


def test_a_step_past_the_replay_is_a_400_naming_the_range(
    ready: tuple[Ladder, Forkable],
) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        page = client.get(f"/matches/{f.match_id}")
        answer = client.post(f"/matches/{f.match_id}/fork",
                             data={**form_of(f, step=100_000), "csrf": csrf_of(page.text)},
                             headers={"origin": ORIGIN})  # fmt: skip
    assert answer.status_code == 400
    assert "can be replayed from step 0 to" in answer.text


def test_a_fourth_waiting_fork_is_a_429(ready: tuple[Ladder, Forkable]) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        for step in range(forks.MAX_PENDING):
            assert post(client, f.match_id, form_of(f, step=step)) == 303
        assert post(client, f.match_id, form_of(f)) == 429
    assert len(forked_matches(ladder)) == forks.MAX_PENDING


def test_a_form_larger_than_its_limit_is_a_413(ready: tuple[Ladder, Forkable]) -> None:
    ladder, f = ready
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["alice"])
        assert post(client, f.match_id, {**form_of(f), "pad": "x" * MAX_FORM}) == 413


def test_the_bot_page_links_its_owners_finished_matches_to_the_form(
    ready: tuple[Ladder, Forkable],
) -> None:
    ladder, f = ready
    link = f'href="/matches/{f.match_id}#fork"'
    with pages(ladder) as client:
        assert link not in client.get(f"/bots/{f.seated.id}").text
        sign_in(client, ladder.tokens["alice"])
        assert link in client.get(f"/bots/{f.seated.id}").text
