"""Challenging a ladder bot from its page (:mod:`niwa.ladder.challenges`).

- ``POST /bots/{id}/challenge`` (a signed-in owner; CSRF-checked; a form of at most
  :data:`MAX_FORM` bytes, with the seat chosen or "" for one drawn at random): opens
  the challenge and sends the browser (303) to the person's page; anyone not signed
  in is sent to sign in first;
- ``/play/{key}`` and its events and moves: the person's page, the routes of
  :mod:`niwa.web.human`, served only to the owner who opened the challenge.

The matches run in this web process's trio run, in a nursery the app's lifespan
holds: stopping the server cancels them, and each is recorded as failed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from niwa.ladder.challenges import Challenge, ChallengeRefused, Challenges
from niwa.ladder.inputs import parse_number
from niwa.referee.replay import MAX_PLAYERS
from niwa.web import signin
from niwa.web.forms import read_body, text_form
from niwa.web.human import Table, human_routes

#: Bytes of the challenge form (its CSRF token and the seat chosen, if any).
MAX_FORM = 1024

log = structlog.get_logger("niwa.web")


class ChallengeHost:
    """The challenges of one web app and the nursery their matches play in."""

    def __init__(self, challenges: Challenges) -> None:
        self.challenges = challenges
        self._nursery: trio.Nursery | None = None

    @asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """The app's lifespan: a nursery for the matches while the server serves."""
        await trio.to_thread.run_sync(self.challenges.abandon_leftovers)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            try:
                yield
            finally:
                self._nursery = None
                nursery.cancel_scope.cancel()  # each match is recorded as failed

    def start(self, challenge: Challenge) -> None:
        """Play ``challenge`` in the lifespan's nursery (503 while the server stops)."""
        if self._nursery is None:
            raise HTTPException(503, "the ladder is stopping: challenge the bot again later")
        self._nursery.start_soon(self.challenges.play, challenge)

    def seating(self, request: Request, key: str) -> Table | None:
        """The challenge at ``key``, for the owner who opened it only."""
        challenge = self.challenges.at(key)
        owner = signin.viewer(request)
        if challenge is None or owner is None or owner.id != challenge.owner.id:
            return None
        return Table(challenge.game, challenge.names, {key: challenge.desk})


def routes(host: ChallengeHost) -> list[Route]:
    async def challenge(request: Request) -> Response:
        bot_id = int(request.path_params["bot_id"])
        owner = await signin.signed_in_owner(request)
        if owner is None:
            return RedirectResponse(f"/signin?next=/bots/{bot_id}", 303)
        form = text_form(await read_body(request, MAX_FORM, "the challenge form"))
        await signin.check_csrf(request, form)
        chosen = form.get("seat")
        seat = None  # "": a seat drawn at random
        if isinstance(chosen, str) and chosen:
            seat = parse_number("seat", chosen, 0, MAX_PLAYERS - 1)  # else a 400 naming it
        try:
            opened = await signin.in_thread(lambda: host.challenges.open(owner, bot_id, seat))
        except ChallengeRefused as e:
            raise HTTPException(409, str(e)) from None
        host.start(opened)
        log.info("challenge_started", match=opened.match_id, owner=owner.name, bot=bot_id)
        return RedirectResponse(f"/play/{opened.key}", 303)

    return [
        Route("/bots/{bot_id:int}/challenge", challenge, methods=["POST"]),
        *human_routes(host.seating),
    ]
