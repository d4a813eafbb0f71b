"""Owners sign in on the ladder's pages with their token: a session cookie kept in the
store only as a hash, ending at sign-out, at its expiry or when the owner has too many;
every state-changing form is refused (403) without the CSRF token of its cookie or from
another site; failed sign-ins are limited per address."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from starlette.requests import Request

from niwa.ladder.store import Store
from niwa.web.signin import COOKIE, FORM_COOKIE, SigninLimits, address
from tests.web.signed_in import ORIGIN, Ladder, csrf_of, make_ladder, pages, sign_in


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return make_ladder(tmp_path)


def sessions(ladder: Ladder) -> list[dict[str, object]]:
    store = Store.open(str(ladder.db))
    try:
        return store.db.execute("SELECT * FROM web_sessions ORDER BY created_at")
    finally:
        store.close()


def test_an_anonymous_visitor_sees_a_sign_in_link(ladder: Ladder) -> None:
    with pages(ladder) as client:
        page = client.get("/")
    assert 'href="/signin"' in page.text and "signed in as" not in page.text


def test_an_owner_signs_in_with_their_token_and_the_header_names_them(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        page = client.get("/")
    assert 'signed in as <strong id="signed-in">ada</strong>' in page.text
    assert 'action="/signout"' in page.text and 'href="/signin"' not in page.text


def test_the_session_cookie_is_http_only_same_site_strict_and_for_the_whole_site(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        form = client.get("/signin")
        answer = client.post("/signin", data={"csrf": csrf_of(form.text),
                                              "token": ladder.tokens["ada"]})  # fmt: skip
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith(COOKIE))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP, and no --secure-cookies


def test_the_cookie_is_secure_when_the_pages_are_served_over_https(ladder: Ladder) -> None:
    with pages(ladder, base_url="https://testserver") as client:
        form = client.get("/signin")
        answer = client.post("/signin", data={"csrf": csrf_of(form.text),
                                              "token": ladder.tokens["ada"]})  # fmt: skip
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith(COOKIE))
    assert "Secure" in cookie


def test_the_cookies_are_secure_on_plain_http_when_the_ladder_says_so(ladder: Ladder) -> None:
    with pages(ladder, SigninLimits(secure=True)) as client:
        form = client.get("/signin")  # a TLS proxy in front: the browser sees HTTPS
    (cookie,) = form.headers.get_list("set-cookie")
    assert cookie.startswith(FORM_COOKIE) and "Secure" in cookie


def test_the_store_keeps_only_the_hash_of_the_session_cookie(ladder: Ladder) -> None:
    with pages(ladder) as client:
        cookie = sign_in(client, ladder.tokens["ada"])
    rows = sessions(ladder)
    assert [r["session_hash"] for r in rows] == [hashlib.sha256(cookie.encode()).hexdigest()]
    assert len(cookie) == 43  # 256 random bits, URL-safe base64


def test_a_wrong_token_starts_no_session(ladder: Ladder) -> None:
    with pages(ladder) as client:
        form = client.get("/signin")
        answer = client.post("/signin", data={"csrf": csrf_of(form.text), "token": "niwa_wrong"})
        assert answer.status_code == 403
        assert "unknown token" in answer.text and "niwa ladder user add" in answer.text
        assert COOKIE not in client.cookies
    assert sessions(ladder) == []


def test_too_many_failed_sign_ins_from_one_address_are_refused_for_a_while(
    ladder: Ladder,
) -> None:
    with pages(ladder, SigninLimits(failures=3)) as client:
        csrf = csrf_of(client.get("/signin").text)
        codes = [client.post("/signin", data={"csrf": csrf, "token": f"niwa_no{i}"}).status_code
                 for i in range(3)]  # fmt: skip
        refused = client.post("/signin", data={"csrf": csrf, "token": ladder.tokens["ada"]})
    assert codes == [403, 403, 403]
    assert refused.status_code == 429 and "failed sign-ins from your address" in refused.text
    assert sessions(ladder) == []


def test_signing_out_ends_the_session(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        csrf = csrf_of(client.get("/").text)
        answer = client.post("/signout", data={"csrf": csrf}, headers={"origin": ORIGIN})
        assert answer.status_code == 303
        page = client.get("/")
    assert "signed in as" not in page.text
    assert sessions(ladder) == []


def test_a_session_cookie_sent_again_after_sign_out_signs_no_one_in(ladder: Ladder) -> None:
    with pages(ladder) as client:
        cookie = sign_in(client, ladder.tokens["ada"])
        client.post("/signout", data={"csrf": csrf_of(client.get("/").text)})
        client.cookies.set(COOKIE, cookie)
        page = client.get("/")
    assert "signed in as" not in page.text


def test_an_expired_session_signs_no_one_in(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        store = Store.open(str(ladder.db))
        try:  # its time has come: the expiry is in the past
            store.db.execute("UPDATE web_sessions SET expires_at = created_at - 1")
        finally:
            store.close()
        page = client.get("/")
    assert "signed in as" not in page.text and 'href="/signin"' in page.text


def test_a_session_lasts_as_long_as_the_ladder_says(ladder: Ladder) -> None:
    with pages(ladder, SigninLimits(session_s=3600)) as client:
        sign_in(client, ladder.tokens["ada"])
    (row,) = sessions(ladder)
    assert row["expires_at"] == pytest.approx(float(row["created_at"]) + 3600)  # type: ignore[arg-type]


def test_a_sign_in_past_the_cap_ends_the_owners_oldest_session(ladder: Ladder) -> None:
    with pages(ladder, SigninLimits(sessions_per_owner=2)) as first:
        oldest = sign_in(first, ladder.tokens["ada"])
    for _ in range(2):
        with pages(ladder, SigninLimits(sessions_per_owner=2)) as other:
            sign_in(other, ladder.tokens["ada"])
    kept = {r["session_hash"] for r in sessions(ladder)}
    assert len(kept) == 2 and hashlib.sha256(oldest.encode()).hexdigest() not in kept


def test_a_session_survives_a_restart_of_the_pages(ladder: Ladder) -> None:
    with pages(ladder) as before:
        cookie = sign_in(before, ladder.tokens["bob"])
    with pages(ladder) as after:
        after.cookies.set(COOKIE, cookie)
        page = after.get("/")
    assert 'signed in as <strong id="signed-in">bob</strong>' in page.text


def test_a_post_without_the_csrf_token_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        client.get("/signin")
        answer = client.post("/signin", data={"token": ladder.tokens["ada"]})
    assert answer.status_code == 403 and "without its CSRF token" in answer.text
    assert sessions(ladder) == []


def test_a_post_with_a_wrong_csrf_token_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        answer = client.post("/signout", data={"csrf": "0" * 64})
    assert answer.status_code == 403 and "does not match your session" in answer.text
    assert len(sessions(ladder)) == 1


def test_a_post_without_the_form_cookie_is_refused(ladder: Ladder) -> None:
    with pages(ladder) as client:
        csrf = csrf_of(client.get("/signin").text)
        client.cookies.delete(FORM_COOKIE)
        answer = client.post("/signin", data={"csrf": csrf, "token": ladder.tokens["ada"]})
    assert answer.status_code == 403 and "cookie it goes with" in answer.text


def test_a_post_from_another_site_is_refused_even_with_the_right_token(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        csrf = csrf_of(client.get("/").text)
        answer = client.post("/signout", data={"csrf": csrf},
                             headers={"origin": "https://evil.example"})  # fmt: skip
    assert answer.status_code == 403 and "from another site" in answer.text
    assert len(sessions(ladder)) == 1


def test_after_sign_in_the_owner_goes_back_to_the_page_they_came_from_on_this_site_only(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        csrf = csrf_of(client.get("/signin?next=/matches").text)
        here = client.post("/signin", data={"csrf": csrf, "token": ladder.tokens["ada"],
                                            "next": "/matches"})  # fmt: skip
        csrf = csrf_of(client.get("/signin").text)  # signed in: the session's token now
        elsewhere = client.post("/signin", data={"csrf": csrf, "token": ladder.tokens["ada"],
                                                 "next": "//evil.example/"})  # fmt: skip
    assert here.headers["location"] == "/matches" and elsewhere.headers["location"] == "/"


def test_a_signed_in_owners_pages_are_kept_out_of_shared_caches(ladder: Ladder) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        page = client.get("/")
    assert page.headers["cache-control"] == "private, no-store"


def test_a_sign_in_form_larger_than_its_bound_is_refused_before_it_is_read(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        csrf = csrf_of(client.get("/signin").text)
        answer = client.post("/signin", data={"csrf": csrf, "token": "x" * 5000})
    assert answer.status_code == 413 and "larger than 4096 bytes" in answer.text


def test_a_post_a_browser_marks_cross_site_is_refused_even_with_the_right_token(
    ladder: Ladder,
) -> None:
    with pages(ladder) as client:
        sign_in(client, ladder.tokens["ada"])
        csrf = csrf_of(client.get("/").text)
        cross = {"sec-fetch-site": "cross-site", "origin": "null"}
        answer = client.post("/signout", data={"csrf": csrf}, headers=cross)
    assert answer.status_code == 403 and "from another site" in answer.text
    assert len(sessions(ladder)) == 1


def test_a_form_of_the_pages_as_chromium_sends_it_is_taken(ladder: Ladder) -> None:
    """The pages' no-referrer policy makes Chromium send ``Origin: null``; its
    Sec-Fetch-Site says same-origin."""
    with pages(ladder) as client:
        form = client.get("/signin")
        answer = client.post(
            "/signin", data={"csrf": csrf_of(form.text), "token": ladder.tokens["ada"]},
            headers={"origin": "null", "sec-fetch-site": "same-origin"},
        )  # fmt: skip
    assert answer.status_code == 303 and len(sessions(ladder)) == 1


def test_behind_a_proxy_failed_sign_ins_count_against_the_address_it_forwards(
    ladder: Ladder,
) -> None:
    """The proxy on loopback (nginx, docs/deploy.md) is everyone's peer: one client's
    failures must not lock the others out."""
    request = Request({"type": "http", "client": ("127.0.0.1", 5000),
                       "headers": [(b"x-forwarded-for", b"10.9.9.9, 192.0.2.7")]})  # fmt: skip
    far = Request({"type": "http", "client": ("192.0.2.50", 5000),
                   "headers": [(b"x-forwarded-for", b"10.9.9.9")]})  # fmt: skip
    assert address(request) == "192.0.2.7"  # the entry the proxy appended
    assert address(far) == "192.0.2.50"  # not from the proxy: its header is not believed


def test_signing_in_again_ends_the_session_it_replaces(ladder: Ladder) -> None:
    with pages(ladder) as client:
        first = sign_in(client, ladder.tokens["ada"])
        second = sign_in(client, ladder.tokens["bob"])
    assert [r["session_hash"] for r in sessions(ladder)] == [
        hashlib.sha256(second.encode()).hexdigest()
    ]
    assert first != second
