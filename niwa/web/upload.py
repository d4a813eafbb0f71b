"""Owners upload bots from the browser: ``/upload`` (the form), ``/upload/{bot}`` (its
validation, followed live) and ``/upload/{bot}/status`` (what the page polls).

An upload takes exactly the API's ``SubmitBot`` path (:func:`niwa.ladder.submission.submit`:
quota, archive checks, manifest, a validation match per game) and its bounds: the same
archive limit, refused from Content-Length before a byte is read or as soon as the body
passes it, within the same time, and as many uploads at once (in total and per owner).
Only signed-in owners get the form; the validation's verdict and stderr go to the
bot's owner (and admins) only, as :class:`niwa.ladder.reads.Reads` decides.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import structlog
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from niwa.ladder import archive, submission
from niwa.ladder.admission import ApiLimits
from niwa.ladder.inputs import MAX_ID
from niwa.ladder.reads import Reads, bot_view
from niwa.ladder.store import DONE, FAILED, PENDING, Bot, Owner, Store, StoreError
from niwa.web.forms import Upload, file_form, read_body
from niwa.web.signin import Attempts, Render, check_csrf, in_thread, signed_in_owner, signin_of

#: The archive limit of SubmitBot, and room for the form's other fields and framing.
ARCHIVE_BYTES = archive.DEFAULT_LIMITS.archive_bytes
FORM_OVERHEAD = 16 << 10
#: Uploads read and judged at once, and how long one may take to arrive: the API's.
UPLOADS, UPLOADS_PER_OWNER = ApiLimits.uploads, ApiLimits.uploads_per_owner
UPLOAD_TIMEOUT_S = ApiLimits.upload_timeout_s
#: Status polls one owner may make per minute (the page polls once a second).
POLLS_PER_MINUTE = 120
NAME_CHARS = 64

log = structlog.get_logger("niwa.web.upload")


class Slots:
    """Uploads in progress: at most ``total``, at most ``each`` per owner."""

    def __init__(self, total: int, each: int) -> None:
        self.total, self.each = total, each
        self.by_owner: Counter[int] = Counter()
        self._lock = threading.Lock()

    @contextmanager
    def taken(self, owner: Owner) -> Iterator[None]:
        with self._lock:
            if sum(self.by_owner.values()) >= self.total:
                raise HTTPException(
                    503, f"the ladder takes at most {self.total} uploads at once: retry shortly"
                )
            if self.by_owner[owner.id] >= self.each:
                raise HTTPException(
                    429, f"at most {self.each} upload at once per owner: wait for yours to end"
                )
            self.by_owner[owner.id] += 1
        try:
            yield
        finally:
            with self._lock:
                self.by_owner[owner.id] -= 1
                if not self.by_owner[owner.id]:
                    del self.by_owner[owner.id]


def routes(render: Render, games: list[str]) -> list[Route]:
    slots = Slots(UPLOADS, UPLOADS_PER_OWNER)
    polls = Attempts(POLLS_PER_MINUTE, 60.0, 10_000)

    async def upload_page(request: Request) -> Response:
        signin = signin_of(request)
        if signin is None:
            raise HTTPException(404, "this ladder's pages are served without sign-in")
        owner = await signed_in_owner(request)
        if owner is None:  # refused before a byte of the body is read
            return RedirectResponse("/signin?next=/upload", 303)
        store = signin.store
        if request.method == "GET":
            return await _form(render, request, store, owner, games)
        with slots.taken(owner):
            try:
                with anyio.fail_after(UPLOAD_TIMEOUT_S):
                    body = await read_body(request, ARCHIVE_BYTES + FORM_OVERHEAD, "the upload")
            except TimeoutError:
                raise HTTPException(
                    408, f"the archive did not arrive within {UPLOAD_TIMEOUT_S:g} s: "
                    "upload it on a faster link",
                ) from None  # fmt: skip
            form = file_form(request, body)
            await check_csrf(request, form)
            game, name, data = _fields(form, games)
            expect = submission.Expected(name, game)
            try:
                bots = await in_thread(
                    lambda: submission.submit(store, owner, data, games, expect=expect)
                )
            except (submission.SubmissionError, StoreError) as e:
                log.info("upload_refused", owner=owner.name, reason=str(e)[:300])
                return await _form(render, request, store, owner, games, str(e), 400, game, name)
        bot = next(b for b in bots if b.game == game)
        log.info("uploaded", owner=owner.name, bot=bot.label, games=[b.game for b in bots])
        return RedirectResponse(f"/upload/{bot.id}", 303)

    async def owned(request: Request) -> tuple[Store, Owner, Bot]:
        """The upload's bot, if the signed-in owner may follow it (else a 404 that does
        not tell whose it is)."""
        signin = signin_of(request)
        if signin is None:
            raise HTTPException(404, "this ladder's pages are served without sign-in")
        owner = await signed_in_owner(request)
        bot_id = int(request.path_params["bot_id"])
        if not 0 < bot_id <= MAX_ID:  # past the store's integers: no such bot
            raise HTTPException(404, f"no upload {bot_id}: ids run from 1 to {MAX_ID}")
        if owner is None:
            raise HTTPException(404, f"no upload {bot_id} here for you: sign in first")
        store = signin.store
        try:
            bot = await in_thread(lambda: store.bots.bot(bot_id))
        except StoreError:
            bot = None
        if bot is None or not (owner.is_admin or bot.owner_id == owner.id):
            raise HTTPException(404, f"no upload {bot_id} of yours: see your bots' pages")
        return store, owner, bot

    async def progress_page(request: Request) -> Response:
        store, owner, bot = await owned(request)
        progress = await in_thread(lambda: _progress(store, games, owner, bot))
        return render("upload_status.html", request, 200, bot=bot_view(bot), progress=progress)

    async def progress_json(request: Request) -> Response:
        store, owner, bot = await owned(request)
        now = time.monotonic()
        wait = polls.wait_s(str(owner.id), now)
        if wait > 0:
            return JSONResponse(
                {"error": f"at most {POLLS_PER_MINUTE} status reads a minute: slow down"},
                429, {"retry-after": str(max(1, round(wait)))},
            )  # fmt: skip
        polls.add(str(owner.id), now)
        return JSONResponse(await in_thread(lambda: _progress(store, games, owner, bot)))

    return [
        Route("/upload", upload_page, methods=["GET", "POST"]),
        Route("/upload/{bot_id:int}", progress_page),
        Route("/upload/{bot_id:int}/status", progress_json),
    ]


def _fields(form: dict[str, Any], games: list[str]) -> tuple[str, str, bytes]:
    """The form's game, bot name and archive, each checked (400 naming the field)."""
    game, name, upload = form.get("game"), form.get("name"), form.get("archive")
    if not isinstance(game, str) or game not in games:
        raise HTTPException(400, f"choose a game of this ladder: {', '.join(games)}")
    if not isinstance(name, str) or not 0 < len(name.strip()) <= NAME_CHARS:
        raise HTTPException(400, f"type the bot's name as bot.toml gives it (1-{NAME_CHARS} "
                            "characters)")  # fmt: skip
    if not isinstance(upload, Upload) or not upload.content:
        raise HTTPException(400, "choose the bot's archive (.tar.gz, from niwa bot pack)")
    if len(upload.content) > ARCHIVE_BYTES:  # SubmitBot's limit, in its words
        raise HTTPException(
            413, f"the archive is larger than {ARCHIVE_BYTES} bytes: leave out what the bot "
            "does not need",
        )  # fmt: skip
    return game, name.strip(), upload.content


async def _form(
    render: Render, request: Request, store: Store, owner: Owner, games: list[str],
    problem: str = "", status: int = 200, game: str = "", name: str = "",
) -> Response:  # fmt: skip
    usage = await in_thread(lambda: (store.owners.owner_usage(owner.id)[0],
                                     submission.quota(store)))  # fmt: skip
    return render(
        "upload.html", request, status, problem=problem, chosen=game, name=name,
        versions=usage[0], quota=usage[1], archive_bytes=ARCHIVE_BYTES, ladder_games=games,
    )  # fmt: skip


def _progress(store: Store, games: list[str], owner: Owner, bot: Bot) -> dict[str, Any]:
    """Where the bot's validation is: its match's state, then the verdict, and the
    validation's stderr as the owner may read it."""
    bot = store.bots.bot(bot.id)
    match_id = store.matches.validation_match(bot.id)
    match = store.matches.match(match_id) if match_id is not None else None
    stderr: list[str] = []
    if match is not None and match.state == DONE:
        try:
            logs = Reads(store, games, owner).bot_logs(match.id, str(bot.id))
            stderr = [line for seat in logs.seats for line in seat.stderr_tail]
        except StoreError:  # not readable (no results kept): nothing to show
            stderr = []
    done = bot.status != PENDING or (match is not None and match.state == FAILED)
    return {
        "bot": bot.label, "game": bot.game, "status": str(bot.status), "reason": bot.reason,
        "match_id": match_id, "match_state": str(match.state) if match else "",
        "stderr": stderr, "done": done,
    }  # fmt: skip
