"""Owners upload bots on the ladder's pages: only signed in, through SubmitBot's own
path and bounds (size refused before the body is read, quota, archive checks), with a
CSRF token, and each upload's progress readable by its owner alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.testclient import TestClient
from starlette.types import Message

from niwa.ladder import archive, submission
from niwa.ladder.store import PENDING, QUEUED, Store
from niwa.web.forms import read_body
from niwa.web.upload import ARCHIVE_BYTES, FORM_OVERHEAD
from tests.ladder.tiny_bots import QUICK, write_bot
from tests.web.signed_in import Ladder, csrf_of, make_ladder, pages, sign_in


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return make_ladder(tmp_path)


@pytest.fixture
def quick(tmp_path: Path) -> bytes:
    """A good archive: the bot quick@0.2.0, for Blossom."""
    return archive.pack_directory(write_bot(tmp_path, "quick", "0.2.0", QUICK))


@pytest.fixture
def ada(ladder: Ladder) -> Iterator[TestClient]:
    """The pages, with ada signed in."""
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        yield client


def bots(ladder: Ladder) -> list[str]:
    store = Store.open(str(ladder.db))
    try:
        return [b.label for b in store.bots.bots(None) if b.source == "archive"]
    finally:
        store.close()


def upload(client: TestClient, data: bytes, name: str = "quick", game: str = "blossom",
           csrf: str | None = None) -> tuple[int, str, str]:  # fmt: skip
    """POST the upload form as the page sends it; status, body and Location."""
    token = csrf if csrf is not None else csrf_of(client.get("/upload").text)
    answer = client.post(
        "/upload", data={"csrf": token, "game": game, "name": name},
        files={"archive": ("bot.tar.gz", data, "application/gzip")},
    )  # fmt: skip
    return answer.status_code, answer.text, answer.headers.get("location", "")


def test_an_anonymous_visitor_is_sent_to_sign_in_instead_of_the_form(ladder: Ladder) -> None:
    with pages(ladder) as client:
        answer = client.get("/upload")
    assert answer.status_code == 303 and answer.headers["location"] == "/signin?next=/upload"


def test_an_anonymous_upload_is_sent_to_sign_in_and_stores_nothing(
    ladder: Ladder, quick: bytes
) -> None:
    with pages(ladder) as client:
        answer = client.post("/upload", data={"game": "blossom", "name": "quick"},
                             files={"archive": ("bot.tar.gz", quick)})  # fmt: skip
    assert answer.status_code == 303 and "/signin" in answer.headers["location"]
    assert bots(ladder) == []


def test_a_signed_in_owner_gets_the_form_with_its_csrf_field(ada: TestClient) -> None:
    page = ada.get("/upload")
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.text
    assert csrf_of(page.text)


def test_an_upload_queues_its_validation_and_leads_to_its_progress(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    status, _, location = upload(ada, quick)
    assert status == 303 and location.startswith("/upload/")
    assert bots(ladder) == ["quick@0.2.0"]
    progress = ada.get(f"{location}/status").json()
    assert (progress["bot"], progress["status"], progress["match_state"], progress["done"]) == (
        "quick@0.2.0", PENDING, QUEUED, False,
    )  # fmt: skip
    page = ada.get(location)
    assert 'id="upload-verdict"' in page.text and "validating" in page.text


def test_an_upload_without_the_csrf_token_is_refused(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    status, body, _ = upload(ada, quick, csrf="")
    assert status == 403 and "CSRF" in body
    assert bots(ladder) == []


def test_an_upload_with_another_sessions_csrf_token_is_refused(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    with pages(ladder) as other:
        sign_in(other, ladder.tokens["ada"])
        stale = csrf_of(other.get("/upload").text)
    status, body, _ = upload(ada, quick, csrf=stale)
    assert status == 403 and "does not match your session" in body
    assert bots(ladder) == []


def test_an_upload_from_another_site_is_refused(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    csrf = csrf_of(ada.get("/upload").text)
    answer = ada.post(
        "/upload", data={"csrf": csrf, "game": "blossom", "name": "quick"},
        files={"archive": ("bot.tar.gz", quick)}, headers={"origin": "https://evil.example"},
    )  # fmt: skip
    assert answer.status_code == 403 and "another site" in answer.text
    assert bots(ladder) == []


def test_an_upload_declared_larger_than_submitbots_limit_is_refused_before_its_body(
    ada: TestClient,
) -> None:
    def body() -> Iterator[bytes]:
        for _ in range(40):  # 40 MiB, past the 32 MiB archive limit
            yield bytes(1 << 20)

    answer = ada.post(
        "/upload", content=body(),
        headers={"content-type": "multipart/form-data; boundary=x",
                 "content-length": str(40 << 20)},
    )  # fmt: skip
    assert answer.status_code == 413
    assert f"larger than {ARCHIVE_BYTES + FORM_OVERHEAD} bytes" in answer.text


def test_a_body_streamed_past_the_limit_is_cut_off_as_it_passes_it() -> None:
    """No Content-Length (chunked): the body is read as it arrives and refused at the
    chunk that passes the limit, never read to its end."""
    pulled = []

    async def receive() -> Message:
        pulled.append(1)
        return {"type": "http.request", "body": bytes(1 << 20), "more_body": len(pulled) < 64}

    request = Request({"type": "http", "method": "POST", "headers": []}, receive)
    with pytest.raises(HTTPException) as refused:
        trio.run(read_body, request, ARCHIVE_BYTES, "the upload")
    assert refused.value.status_code == 413
    assert len(pulled) == ARCHIVE_BYTES // (1 << 20) + 1  # 33 of the 64 MiB


def test_the_name_typed_must_be_the_one_bot_toml_gives(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    status, body, _ = upload(ada, quick, name="slow")
    assert status == 400 and "bot.toml names the bot &#39;quick&#39;, not &#39;slow&#39;" in body
    assert bots(ladder) == []


def test_the_game_chosen_must_be_one_of_the_ladder(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    status, body, _ = upload(ada, quick, game="sakura")  # this ladder plays blossom only
    assert status == 400 and "choose a game of this ladder: blossom" in body
    assert bots(ladder) == []


def test_the_version_quota_holds_on_the_page_as_in_the_api(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    store = Store.open(str(ladder.db))
    try:
        submission.set_quota(store, versions=0)
        owner = store.owners.owner_for_token(ladder.tokens["bob"])
        assert owner is not None
        with pytest.raises(submission.SubmissionError) as api:
            submission.submit(store, owner, quick, ["blossom"])
    finally:
        store.close()
    status, body, _ = upload(ada, quick)
    assert status == 400
    assert str(api.value).replace("bob", "ada").replace("'", "&#39;") in body
    assert bots(ladder) == []


def test_another_owners_upload_progress_is_not_found(
    ada: TestClient, ladder: Ladder, quick: bytes
) -> None:
    location = upload(ada, quick)[2]
    with pages(ladder) as bob:
        sign_in(bob, ladder.tokens["bob"])
        assert bob.get(location).status_code == 404
        assert bob.get(f"{location}/status").status_code == 404
    with pages(ladder) as anonymous:
        assert anonymous.get(f"{location}/status").status_code == 404


def test_an_upload_id_past_the_stores_integers_is_not_found(ada: TestClient) -> None:
    assert ada.get("/upload/99999999999999999999/status").status_code == 404
