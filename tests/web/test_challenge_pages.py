"""Challenging a bot from its page (niwa.web.challenge), over a real SQLite store and
the app as ``niwa ladder serve --web`` builds it: signed-in owners get the button on an
active bot's page, anyone else a sign-in link; the POST is CSRF-checked and bounded,
and the person's page is served to the owner who opened the challenge only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from niwa.ladder import challenges
from niwa.ladder.challenges import Challenges
from niwa.ladder.store import ACTIVE, FAILED, RUNNING, Store
from niwa.ladder.submission import builtin_bot
from niwa.web import live
from niwa.web.app import create_app
from niwa.web.server import open_read_only, open_writer
from tests.web.signed_in import ORIGIN, Ladder, csrf_of, make_ladder, sign_in


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    made = make_ladder(tmp_path)
    store = Store.open(str(made.db), tmp_path)
    try:
        builtin_bot(store, "random", "blossom", ACTIVE)
    finally:
        store.close()
    return made


@contextmanager
def pages(ladder: Ladder, cap: int = 4) -> Iterator[TestClient]:
    """A client of the pages with challenges served (its lifespan holds their nursery)."""
    reads, writer = open_read_only(str(ladder.db)), open_writer(str(ladder.db))
    try:
        app = create_app(reads, ["blossom"], writer=writer, challenges=Challenges(writer, cap=cap))
        with TestClient(app, ORIGIN, backend="trio", follow_redirects=False) as client:
            yield client
    finally:
        reads.close()
        writer.close()


def bot_id(ladder: Ladder, name: str = "random") -> int:
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        return next(b.id for b in store.bots.bots("blossom") if b.name == name)
    finally:
        store.close()


def challenge(client: TestClient, bot: int, seat: str = "") -> tuple[int, str]:
    """Press the bot page's button (``seat``: the one chosen; "": drawn at random): the
    answer's status and where it sends the browser."""
    page = client.get(f"/bots/{bot}")
    answer = client.post(
        f"/bots/{bot}/challenge", data={"csrf": csrf_of(page.text), "seat": seat},
        headers={"origin": ORIGIN},
    )  # fmt: skip
    return answer.status_code, answer.headers.get("location", answer.text)


def test_an_anonymous_visitor_is_asked_to_sign_in_to_challenge(ladder: Ladder) -> None:
    with pages(ladder) as client:
        page = client.get(f"/bots/{bot_id(ladder)}").text
    assert "Sign in to challenge this bot" in page
    assert "challenge-button" not in page


def test_a_signed_in_owner_gets_the_challenge_button_on_an_active_bots_page(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        page = client.get(f"/bots/{bot_id(ladder)}").text
    assert 'id="challenge-button"' in page
    assert "the match is unrated" in page


def test_an_anonymous_challenge_is_sent_to_sign_in(ladder: Ladder) -> None:
    bot = bot_id(ladder)
    with pages(ladder) as client:
        answer = client.post(f"/bots/{bot}/challenge", headers={"origin": ORIGIN})
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/signin?next=/bots/{bot}"


def test_a_challenge_without_the_csrf_token_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        answer = client.post(f"/bots/{bot_id(ladder)}/challenge", headers={"origin": ORIGIN})
    assert answer.status_code == 403
    assert "CSRF" in answer.text


def test_a_challenge_form_past_its_bound_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        answer = client.post(
            f"/bots/{bot_id(ladder)}/challenge", content=b"x" * 2000,
            headers={"origin": ORIGIN, "content-type": "application/x-www-form-urlencoded"},
        )  # fmt: skip
    assert answer.status_code == 413


def test_a_challenge_sends_the_owner_to_their_seats_page(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        status, where = challenge(client, bot_id(ladder))
        assert status == 303
        assert where.startswith("/play/")
        page = client.get(where)
        assert page.status_code == 200
        assert 'id="niwa-human"' in page.text
        assert "ada" in page.text  # the seat is named after the person
        store = Store.open(str(ladder.db), ladder.db.parent)
        try:
            assert [m.state for m in store.matches.matches()] == [RUNNING]
        finally:
            store.close()


def test_an_owner_plays_the_seat_they_chose(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        _, where = challenge(client, bot_id(ladder), seat="1")
        page = client.get(where).text
    assert 'data-seat="1"' in page


def test_a_seat_the_table_does_not_have_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        status, text = challenge(client, bot_id(ladder), seat="3")
        assert (status, "seats 0 to 1" in text) == (409, True)
        status, text = challenge(client, bot_id(ladder), seat="first")
        assert status == 400


def test_another_owner_gets_no_page_for_someone_elses_seat(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        _, where = challenge(client, bot_id(ladder))
        client.cookies.clear()
        sign_in(client, ladder.tokens["bob"])
        assert client.get(where).status_code == 404
        assert client.get(f"{where}/events").status_code == 404


def test_a_second_challenge_while_one_is_played_is_refused_naming_the_match(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        challenge(client, bot_id(ladder))
        status, text = challenge(client, bot_id(ladder))
    assert status == 409
    assert "already playing match" in text


def test_a_rated_ladder_tells_the_owner_they_play_as_the_human_row(ladder: Ladder) -> None:
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        challenges.set_rated(store, True)
    finally:
        store.close()
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        page = client.get(f"/bots/{bot_id(ladder)}").text
    assert "the match is rated: you play as the blossom leaderboard's human row" in page


def test_the_human_row_has_no_challenge_button(ladder: Ladder) -> None:
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        challenges.set_rated(store, True)
        row = challenges.human_row(store, "blossom", rated=True)
    finally:
        store.close()
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        page = client.get(f"/bots/{row.id}").text
    assert "challenge-button" not in page


def test_the_leaderboard_shows_the_human_row_marked_only_while_challenges_are_rated(
    ladder: Ladder,
) -> None:
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        challenges.human_row(store, "blossom", rated=False)
        with pages(ladder) as client:
            unrated = client.get("/games/blossom").text
        challenges.set_rated(store, True)
        challenges.human_row(store, "blossom", rated=True)
        with pages(ladder) as client:
            rated = client.get("/games/blossom").text
            offer = client.get(f"/bots/{bot_id(ladder)}").text
    finally:
        store.close()
    assert "human@1" not in unrated
    assert "human@1" in rated and 'class="human-row"' in rated
    assert "Sign in to challenge this bot" in offer  # anonymous: the offer, not the button


def test_a_challenge_still_played_when_the_pages_stop_is_recorded_failed(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        challenge(client, bot_id(ladder))
    store = Store.open(str(ladder.db), ladder.db.parent)
    try:
        [match] = store.matches.matches()
    finally:
        store.close()
    assert match.state == FAILED
    assert "stopped while the challenge was played" in match.error


def test_a_challenge_being_played_is_watched_live_as_a_spectator(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        challenge(client, bot_id(ladder))
        store = Store.open(str(ladder.db), ladder.db.parent)
        try:
            match_id = store.matches.matches()[0].id
        finally:
            store.close()
        listed = client.get("/matches").text
        assert f'<a class="live-link" href="/matches/{match_id}">live</a>' in listed
        seen = ""
        with client.stream("GET", f"/matches/{match_id}/live") as response:
            for text in response.iter_text():  # the match waits for the person: read a while
                seen += text
                if "event: start" in seen and "\n\n" in seen.split("event: start", 1)[1]:
                    break
    start = seen.split("event: start", 1)[1].split("\n\n", 1)[0]
    data = json.loads(start.split("data: ", 1)[1])
    assert data["seed"] == live.SEED_HIDDEN  # a spectator's view: the seed stays hidden
    assert "ada" in json.dumps(data)  # the person's seat, named as in the replay
