"""Owners replay a finished match from a step with another version of theirs
(:mod:`niwa.ladder.forks`), from the match page's form.

- ``POST /matches/{id}/fork`` (a signed-in owner; CSRF-checked; a form of at most
  :data:`MAX_FORM` bytes: the step, the seat and the bot's id): queues the fork and
  sends the browser (303) to the new match's page, live while it plays; anyone not
  signed in is sent to sign in first. Refused with one line naming why: 400 (a step,
  seat or bot the rules refuse), 403 (not the viewer's seat or bot), 404 (no such
  match or bot), 429 (:data:`niwa.ladder.forks.MAX_PENDING` waiting or
  :data:`niwa.ladder.forks.PER_HOUR` this hour).
"""

from __future__ import annotations

import structlog
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from niwa.ladder import forks
from niwa.ladder.inputs import MAX_ID, parse_number
from niwa.ladder.reads import Denied
from niwa.referee.replay import MAX_PLAYERS
from niwa.web.forms import Form, read_body, text_form
from niwa.web.signin import check_csrf, in_thread, signed_in_owner, signin_of

#: Bytes of the fork form (its CSRF token, step, seat and bot id).
MAX_FORM = 1024
#: The largest step a form may name (the API's int32 field; the replay decides).
MAX_STEP = 2**31 - 1

log = structlog.get_logger("niwa.web.fork")


def routes() -> list[Route]:
    async def fork(request: Request) -> Response:
        match_id = int(request.path_params["match_id"])
        signin = signin_of(request)
        if signin is None:
            raise HTTPException(404, "this ladder's pages are served without sign-in")
        owner = await signed_in_owner(request)
        if owner is None:  # refused before a byte of the body is read
            return RedirectResponse(f"/signin?next=/matches/{match_id}", 303)
        form = text_form(await read_body(request, MAX_FORM, "the fork form"))
        await check_csrf(request, form)
        step = parse_number("step", _field(form, "step"), 0, MAX_STEP)  # else a 400
        seat = parse_number("seat", _field(form, "seat"), 0, MAX_PLAYERS - 1)
        bot = parse_number("bot", _field(form, "bot"), 1, MAX_ID)
        store = signin.store
        try:
            forked = await in_thread(lambda: forks.queue(store, owner, match_id, step, seat, bot))
        except forks.TooManyForks as e:
            raise HTTPException(429, str(e)) from None
        except Denied as e:
            raise HTTPException(403, str(e)) from None
        log.info("fork_asked", match=forked, origin=match_id, owner=owner.name)
        return RedirectResponse(f"/matches/{forked}", 303)

    return [Route("/matches/{match_id:int}/fork", fork, methods=["POST"])]


def _field(form: Form, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""
