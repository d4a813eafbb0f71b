"""Owners signed in on the ladder's pages: a session cookie, CSRF-checked forms.

An owner signs in with their API token (``niwa ladder user add`` printed it) at
``/signin``. The server answers with a session cookie of 256 random bits (HttpOnly,
``SameSite=Strict``, ``Path=/``; ``Secure`` over TLS or when the ladder says so) and
keeps only its SHA-256, with the owner and the expiry, in the store's ``web_sessions``
table: every web process of one store knows the session, a restart keeps it, and a
copy of the store signs no one in. An owner keeps at most a few sessions (the oldest
ends), and failed sign-ins are counted per address (too many: 429 for a while).

Every state-changing POST carries a CSRF token in a hidden field, derived from the
cookie (its SHA-256 under a label of its own, so the store's hash of the cookie is not
it), and checked in constant time; a POST whose Origin or Sec-Fetch-Site header says
it comes from another site is refused first. Before sign-in the form's token comes from
a short-lived cookie of the sign-in page. Both refusals are 403s that say what to do.

For the routes: :func:`signed_in_owner` (the owner or None), :func:`check_csrf` (raises
the 403), and the templates' ``csrf_field(request)`` (the hidden field).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import re
import secrets
import threading
import time
import urllib.parse
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio.to_thread
import structlog
from markupsafe import Markup, escape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from niwa.ladder.admission import UNKNOWN_TOKEN
from niwa.ladder.db import DatabaseError
from niwa.ladder.store import Owner, Store
from niwa.web.forms import Form, read_body, text_form

COOKIE = "niwa_session"
#: The sign-in page's own cookie: what its form's CSRF token comes from, before a session.
FORM_COOKIE = "niwa_signin"
FORM_COOKIE_S = 3600
CSRF_FIELD = "csrf"
#: A cookie value as :func:`secrets.token_urlsafe` (32) makes it; anything else is no session.
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")
_OWNER_KEY = "niwa_owner"  # request.state: the owner the session names (None: anonymous)
_SECRET_KEY = "niwa_form_secret"  # request.state: a form cookie made by this response

T = TypeVar("T")
log = structlog.get_logger("niwa.web.signin")


@dataclass(frozen=True)
class SigninLimits:
    """The bounds of sign-in (listed in docs/security.md, "Signing in on the web")."""

    session_s: float = 12 * 3600  # a session ends this long after sign-in
    sessions_per_owner: int = 5  # a sixth sign-in ends the owner's oldest session
    failures: int = 10  # failed sign-ins an address may make per window ...
    failure_window_s: float = 600.0  # ... this long
    addresses: int = 10_000  # addresses whose failures are remembered (oldest forgotten)
    form_bytes: int = 4096  # the sign-in and sign-out forms' bodies
    secure: bool = False  # mark the cookie Secure even on plain HTTP (a TLS proxy in front)


class Attempts:
    """How many times each key did something within the last ``window_s``: at most
    ``keys`` keys are remembered (the longest idle forgotten first). Pages run on worker
    threads, hence the lock."""

    def __init__(self, limit: int, window_s: float, keys: int) -> None:
        self.limit, self.window_s, self.keys = limit, window_s, keys
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_s(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        with self._lock:
            times = self._recent(key, now)
            return 0.0 if len(times) < self.limit else times[0] + self.window_s - now

    def add(self, key: str, now: float) -> None:
        with self._lock:
            self._recent(key, now).append(now)
            self._seen.move_to_end(key)
            while len(self._seen) > self.keys:
                self._seen.popitem(last=False)

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._seen.setdefault(key, deque())
        while times and times[0] <= now - self.window_s:
            times.popleft()
        return times


class Signin:
    """What the sign-in routes share: the store they write sessions to, the limits and
    the failed attempts of this process."""

    def __init__(self, store: Store, limits: SigninLimits | None = None) -> None:
        self.store = store
        self.limits = limits or SigninLimits()
        self.failures = Attempts(
            self.limits.failures, self.limits.failure_window_s, self.limits.addresses
        )


def session_hash(cookie: str) -> str:
    """What the store keeps of a session cookie."""
    return hashlib.sha256(cookie.encode()).hexdigest()


def csrf_token(secret: str) -> str:
    """The CSRF token of the forms of whoever holds the cookie ``secret``."""
    return hashlib.sha256(b"niwa csrf\0" + secret.encode()).hexdigest()


def signin_of(request: Request) -> Signin | None:
    """The app's sign-in (None: the pages are served without it)."""
    found: Signin | None = getattr(request.app.state, "signin", None)
    return found


async def in_thread(work: Callable[[], T]) -> T:
    """Store work off the event loop (the store's calls block)."""
    return await anyio.to_thread.run_sync(work)


async def signed_in_owner(request: Request) -> Owner | None:
    """The owner whose unexpired session cookie came with ``request``; None for anyone
    else (no cookie, an unknown or expired one, or sign-in not served). Looked up once
    per request."""
    state = request.state
    if hasattr(state, _OWNER_KEY):
        owner: Owner | None = getattr(state, _OWNER_KEY)
        return owner
    owner = None
    signin = signin_of(request)
    cookie = request.cookies.get(COOKIE, "")
    if signin is not None and _COOKIE_VALUE.fullmatch(cookie):
        digest = session_hash(cookie)
        owner = await in_thread(lambda: signin.store.sessions.session_owner(digest, time.time()))
    setattr(state, _OWNER_KEY, owner)
    return owner


def viewer(request: Request) -> Owner | None:
    """The signed-in owner, for the pages served on worker threads (found before them
    by :class:`SessionLookup`)."""
    owner: Owner | None = getattr(request.state, _OWNER_KEY, None)
    return owner


def _form_secret(request: Request) -> str:
    """The cookie the request's CSRF token is derived from: the session's, else the
    sign-in form's ("" when neither came)."""
    for name in (COOKIE, FORM_COOKIE):
        value = request.cookies.get(name, "")
        if _COOKIE_VALUE.fullmatch(value):
            return value
    made: str = getattr(request.state, _SECRET_KEY, "")
    return made


def csrf_field(request: Request) -> Markup:
    """The hidden field every POST form of the pages carries (for templates)."""
    return Markup('<input type="hidden" name="{}" value="{}">').format(
        CSRF_FIELD, escape(csrf_token(_form_secret(request)))
    )


def _same_origin(request: Request) -> bool:
    """Not sent from another site, as far as the browser says: its Sec-Fetch-Site, if
    sent, is same-origin; its Origin, if it names one, is the host the request came to.
    ``Origin: null`` names none: the pages' own ``Referrer-Policy: no-referrer`` makes
    Chromium send it on their forms (the CSRF token still decides then)."""
    fetched_from = request.headers.get("sec-fetch-site")
    if fetched_from is not None and fetched_from not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return True
    host = request.headers.get("host", "")
    return urllib.parse.urlsplit(origin).netloc.lower() == host.lower()


async def check_csrf(request: Request, form: Form) -> None:
    """Refuse (403, saying why and what to do) a POST from another site, or without the
    CSRF token of the cookie it came with."""
    if not _same_origin(request):
        log.info("csrf_refused", path=request.url.path, reason="origin",
                 origin=request.headers.get("origin", "")[:200])  # fmt: skip
        raise HTTPException(
            403, "this form was sent from another site: the ladder takes its forms only "
            "from its own pages; open the page on the ladder and send it from there",
        )  # fmt: skip
    secret = _form_secret(request)
    given = form.get(CSRF_FIELD)
    if not secret or not isinstance(given, str) or not given:
        log.info("csrf_refused", path=request.url.path, reason="missing")
        raise HTTPException(
            403, "the form came without its CSRF token or the cookie it goes with: open "
            "the page again (with cookies on for this site) and send the form from there",
        )  # fmt: skip
    if not hmac.compare_digest(given.encode(), csrf_token(secret).encode()):
        log.info("csrf_refused", path=request.url.path, reason="mismatch")
        raise HTTPException(
            403, "the form's CSRF token does not match your session (it was sent from "
            "an older page or another site): reload the page and send it again",
        )  # fmt: skip


def _secure(request: Request, signin: Signin) -> bool:
    return signin.limits.secure or request.url.scheme == "https"


def _set_cookie(response: Response, request: Request, name: str, value: str,
                max_age: int) -> None:  # fmt: skip
    signin = signin_of(request)
    assert signin is not None
    response.set_cookie(
        name, value, max_age=max_age, path="/", httponly=True, samesite="strict",
        secure=_secure(request, signin),
    )  # fmt: skip


def _forget_cookie(response: Response, request: Request, name: str) -> None:
    signin = signin_of(request)
    assert signin is not None
    response.delete_cookie(
        name, path="/", httponly=True, samesite="strict", secure=_secure(request, signin)
    )


def local_path(text: object) -> str:
    """Where to go after signing in: a path of this site only (never another host)."""
    if isinstance(text, str) and text.startswith("/") and not text.startswith(("//", "/\\")):
        return text[:512]
    return "/"


def address(request: Request) -> str:
    """Who to count failed sign-ins against: the peer's address; for a peer on loopback
    (the proxy in front, docs/deploy.md) the address it appended to X-Forwarded-For, the
    one entry a client cannot write itself."""
    peer = request.client.host if request.client else "unknown"
    forwarded = request.headers.get("x-forwarded-for", "")
    if forwarded and _loopback(peer):
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:64]
    return peer


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


Render = Callable[..., Response]


def routes(render: Render) -> list[Route]:
    """GET/POST /signin and POST /signout; ``render(name, request, status, **context)``
    renders a page."""

    async def signin_page(request: Request) -> Response:
        signin = signin_of(request)
        if signin is None:
            raise HTTPException(404, "this ladder's pages are served without sign-in")
        if request.method == "GET":
            return _signin_form(request, render, local_path(request.query_params.get("next")))
        body = await read_body(request, signin.limits.form_bytes, "the sign-in form")
        form = text_form(body)
        await check_csrf(request, form)
        then = local_path(form.get("next"))
        now, who = time.monotonic(), address(request)
        wait = signin.failures.wait_s(who, now)
        if wait > 0:
            log.info("signin_throttled", address=who)
            raise HTTPException(
                429, f"{signin.limits.failures} failed sign-ins from your address within "
                f"{signin.limits.failure_window_s / 60:g} minutes: wait "
                f"{math.ceil(wait / 60)} minutes, then sign in with the token niwa ladder "
                "user add printed",
            )  # fmt: skip
        token = form.get("token")
        token = token.strip() if isinstance(token, str) else ""
        owner = None
        if token:
            owner = await in_thread(lambda: signin.store.owners.owner_for_token(token))
        if owner is None:
            signin.failures.add(who, now)
            log.info("signin_failed", address=who)
            problem = UNKNOWN_TOKEN if token else "paste your owner token to sign in"
            return _signin_form(request, render, then, problem, 403)
        cookie = secrets.token_urlsafe(32)
        limits = signin.limits
        started = time.time()
        replaced = request.cookies.get(COOKIE, "")  # signing in again: that session ends

        def start() -> None:
            if _COOKIE_VALUE.fullmatch(replaced):
                signin.store.sessions.end_session(session_hash(replaced))
            signin.store.sessions.start_session(
                session_hash(cookie), owner.id, started, started + limits.session_s,
                limits.sessions_per_owner,
            )  # fmt: skip

        await in_thread(start)
        log.info("signed_in", owner=owner.name, address=who)
        response = RedirectResponse(then, 303)
        _set_cookie(response, request, COOKIE, cookie, int(limits.session_s))
        _forget_cookie(response, request, FORM_COOKIE)
        return response

    async def signout(request: Request) -> Response:
        signin = signin_of(request)
        if signin is None:
            raise HTTPException(404, "this ladder's pages are served without sign-in")
        form = text_form(await read_body(request, signin.limits.form_bytes, "the sign-out form"))
        await check_csrf(request, form)
        cookie = request.cookies.get(COOKIE, "")
        owner = await signed_in_owner(request)
        if _COOKIE_VALUE.fullmatch(cookie):
            await in_thread(lambda: signin.store.sessions.end_session(session_hash(cookie)))
        log.info("signed_out", owner=owner.name if owner else None)
        response = RedirectResponse("/", 303)
        _forget_cookie(response, request, COOKIE)
        return response

    return [
        Route("/signin", signin_page, methods=["GET", "POST"]),
        Route("/signout", signout, methods=["POST"]),
    ]


def _signin_form(request: Request, render: Render, then: str, problem: str = "",
                 status: int = 200) -> Response:  # fmt: skip
    """The sign-in page; it sets the form's cookie when the browser has none yet."""
    made = ""
    if not _form_secret(request):
        made = secrets.token_urlsafe(32)
        setattr(request.state, _SECRET_KEY, made)
    response = render("signin.html", request, status, then=then, problem=problem)
    if made:
        _set_cookie(response, request, FORM_COOKIE, made, FORM_COOKIE_S)
    return response


class SessionLookup:
    """Finds the signed-in owner before the route (pages served on worker threads read
    it with :func:`viewer`), and keeps every answer to a request with a session cookie
    out of shared caches (``Cache-Control: private, no-store``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        try:
            await signed_in_owner(request)
        except DatabaseError as e:  # the page itself answers 503; no one is signed in meanwhile
            log.error("session_lookup_failed", error=str(e))
            setattr(request.state, _OWNER_KEY, None)
        if COOKIE not in request.cookies:
            await self.app(scope, receive, send)
            return

        async def private(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = [
                    (k, v) for k, v in message.get("headers", []) if k != b"cache-control"
                ]
                headers.append((b"cache-control", b"private, no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, private)
