"""The human seat's routes (niwa.web.human) without a browser: the secret key, the
move requests refused with a reason, and the page's strict headers."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import httpx
import pytest
from starlette.testclient import TestClient

from niwa import engine
from niwa.referee.human import Asked, Choice, Desk
from niwa.web.human import Table, human_app


@pytest.fixture
def seat() -> Iterator[tuple[TestClient, Desk, str]]:
    desk = Desk(0)
    table = Table("blossom", ["human", "builtin:random"])
    key = table.seat(desk)
    with TestClient(human_app(table), backend="trio") as client:
        yield client, desk, key


def waiting(desk: Desk, decision: int = 4) -> None:
    """Make the desk show a question with two moves (as the referee would)."""
    desk.asked = Asked(decision, (Choice(0, "a", ()), Choice(1, "b", ())), 1000)


def move(seat: tuple[TestClient, Desk, str], decision: object, index: object,
         **headers: str) -> httpx.Response:  # fmt: skip
    """POST a move to the seat's page; the answer."""
    client, _, key = seat
    return client.post(
        f"/play/{key}/move", json={"decision": decision, "index": index}, headers=headers
    )


def test_a_wrong_key_finds_no_seat(seat: tuple[TestClient, Desk, str]) -> None:
    client, _, _ = seat
    answer = client.get("/play/not-the-key")
    assert answer.status_code == 404 and "use the URL niwa play printed" in answer.text


def test_the_page_is_served_with_the_strict_policy_and_no_inline_script(
    seat: tuple[TestClient, Desk, str],
) -> None:
    client, _, key = seat
    page = client.get(f"/play/{key}")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert '<script type="module" src="/static/human.js"></script>' in page.text
    assert page.text.count("<script") == 1


def test_a_move_when_none_is_asked_is_refused_naming_why(
    seat: tuple[TestClient, Desk, str],
) -> None:
    answer = move(seat, 4, 0)
    assert answer.status_code == 409 and "not waiting for a move" in answer.json()["error"]


def test_a_move_to_the_question_waiting_is_taken(seat: tuple[TestClient, Desk, str]) -> None:
    waiting(seat[1])
    answer = move(seat, 4, 1)
    assert answer.json() == {"ok": True}


def test_the_same_move_sent_twice_is_refused_the_second_time(
    seat: tuple[TestClient, Desk, str],
) -> None:
    waiting(seat[1])
    move(seat, 4, 1)
    again = move(seat, 4, 1)
    assert again.status_code == 409 and "already answered" in again.json()["error"]


def test_a_move_out_of_range_is_refused(seat: tuple[TestClient, Desk, str]) -> None:
    waiting(seat[1])
    answer = move(seat, 4, 2)
    assert answer.status_code == 409 and "not one of the 2 legal moves" in answer.json()["error"]


def test_a_move_that_is_not_json_integers_is_a_400(seat: tuple[TestClient, Desk, str]) -> None:
    waiting(seat[1])
    answer = move(seat, "4", 0)
    assert answer.status_code == 400


def test_a_move_from_another_origin_is_refused(seat: tuple[TestClient, Desk, str]) -> None:
    desk = seat[1]
    waiting(desk)
    answer = move(seat, 4, 0, origin="http://elsewhere.example")
    assert answer.status_code == 403 and desk.snapshot()["question"] is not None


def test_the_page_carries_the_games_words_for_its_card_ids() -> None:
    table = Table("sakura", ["human", "builtin:random"])
    key = table.seat(Desk(0))
    with TestClient(human_app(table), backend="trio") as client:
        page = client.get(f"/play/{key}").text
    glossary = engine.load("sakura").glossary()
    assert glossary
    carried = json.loads(html.unescape(page.split('data-glossary="', 1)[1].split('"', 1)[0]))
    assert carried == dict(glossary)
