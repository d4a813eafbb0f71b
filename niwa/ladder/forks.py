"""The ladder's offer to an owner: replay a finished match from step N with another
version of theirs in their seat.

A fork is an unrated match of kind ``forked`` queued for the runner like any other;
``match_forks`` (schema 10) keeps where it starts. The runner's worker builds
``MatchSpec.fork`` from the origin's recorded (full) replay, so the fork's first N steps
are the origin's and its header carries the :class:`niwa.referee.replay.ForkOrigin`
(``niwa replay fork`` plays forks the same way, locally).

Who may: the owner of the bot in seat K of a finished match that is not a fork itself,
choosing another bot of theirs for the same game that passed its validation match and is
kept (active, superseded, retired or suspended). Bounded: :data:`MAX_PENDING` forks
queued or running per owner, :data:`PER_HOUR` asked for per owner per hour.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass

import structlog

from niwa.ladder.inputs import NotFound
from niwa.ladder.reads import Denied, Reads
from niwa.ladder.store import (
    ACTIVE,
    DONE,
    HUMAN_SOURCE,
    RETIRED,
    SUPERSEDED,
    SUSPENDED,
    Bot,
    Match,
    Owner,
    Store,
    StoreError,
)
from niwa.referee.fork import ForkRefused, fork_start
from niwa.referee.replay import Replay, ReplayError, parse

#: Forks one owner may have queued or running at once.
MAX_PENDING = 3
#: Forks one owner may ask for in any hour.
PER_HOUR = 10
#: The statuses of a bot that may sit in a fork: it passed validation and is kept.
FORKABLE = (ACTIVE, SUPERSEDED, RETIRED, SUSPENDED)

_log = structlog.get_logger("niwa.ladder.forks")


class CannotFork(StoreError):
    """A fork the rules refuse (gRPC INVALID_ARGUMENT, a 400 page); the message names
    the cause and the fix."""


class TooManyForks(StoreError):
    """An owner over a fork bound (gRPC RESOURCE_EXHAUSTED, a 429 page)."""


@dataclass(frozen=True)
class Offer:
    """What an owner may fork in one match: their seats, and the bots that may take
    each one's place (another of theirs for the game, kept)."""

    match_id: int
    seats: tuple[int, ...]
    bots: tuple[Bot, ...]


def recorded_replay(store: Store, match: Match) -> bytes:
    """The finished match's whole replay (every seat's private text too: the worker
    forks it, nobody is shown it), checked against the SHA-256 its commit recorded."""
    recorded = match.replay_sha256 or ""
    try:
        content = store.files.replay_path(match.id).read_bytes()
    except OSError:  # not played on this node: the store's copy
        content = (store.files.blob(recorded) if recorded else None) or b""
    if not content or hashlib.sha256(content).hexdigest() != recorded:
        raise CannotFork(
            f"the replay of match {match.id} is missing or no longer matches its recorded "
            "SHA-256: it cannot be forked (GetReplay says why)"
        )
    return content


def offer(store: Store, owner: Owner, match: Match) -> Offer | None:
    """The forks ``owner`` may ask for in ``match``; None: none (not finished, a fork
    itself, no seat of theirs, no other kept bot of theirs)."""
    if match.state != DONE or store.forks.fork(match.id) is not None:
        return None
    if Reads(store).round_unfinished(match):
        return None
    sat = {b: store.bots.bot(b) for b in set(match.seats)}
    if any(b.source == HUMAN_SOURCE for b in sat.values()):  # nobody would play that seat
        return None
    seats = tuple(s for s, b in enumerate(match.seats) if sat[b].owner_id == owner.id)
    if not seats:
        return None
    mine = store.bots.bots(match.game, FORKABLE, owner_id=owner.id)
    others = tuple(b for b in mine if b.archive_hash and b.id not in match.seats)
    if not others:
        return None
    return Offer(match.id, seats, others)


def queue(
    store: Store, owner: Owner, match_id: int, step: int, seat: int, bot_id: int,
    rng: random.Random | None = None,
) -> int:  # fmt: skip
    """Queue ``owner``'s fork of match ``match_id`` from step ``step`` with bot
    ``bot_id`` in seat ``seat``; return the new match's id. NotFound, Denied (not
    their seat or bot), CannotFork or TooManyForks name why not."""
    try:
        match = store.matches.match(match_id)
    except StoreError as e:
        raise NotFound(str(e)) from None
    origin = store.forks.fork(match.id)
    if origin is not None:
        raise CannotFork(
            f"match {match.id} is itself a fork of match {origin.origin_id} at step "
            f"{origin.step}: replay match {origin.origin_id} from a step instead"
        )
    if match.state != DONE:
        raise CannotFork(
            f"match {match.id} is {match.state}: only a finished match can be replayed "
            "from a step; wait for its end"
        )
    if Reads(store).round_unfinished(match):  # its replay would show the round's deals
        raise CannotFork(
            f"match {match.id}'s duplicate round is still being played, and a fork shows "
            "its steps: replay it once the round has finished"
        )
    if not 0 <= seat < len(match.seats):
        raise CannotFork(f"seat {seat}: match {match.id} has seats 0 to {len(match.seats) - 1}")
    seated = store.bots.bot(match.seats[seat])
    if any(store.bots.bot(b).source == HUMAN_SOURCE for b in set(match.seats)):
        raise CannotFork(f"a person played in match {match.id}, and only the ladder's bots "
                         "can play it on: replay a match of bots")  # fmt: skip
    if seated.owner_id != owner.id:
        raise Denied(
            f"seat {seat} of match {match.id} is {seated.label}, {seated.owner}'s bot: "
            f"{owner.name} may replay only the seats of their own bots"
        )
    bot = _replacement(store, owner, match, seated, bot_id)
    _within_bounds(store, owner)
    replay = parse(recorded_replay(store, match), f"match {match.id}")
    _start(replay, match, step)
    seats = list(match.seats)
    seats[seat] = bot.id
    seed = (rng or random.SystemRandom()).getrandbits(62)
    forked = store.forks.queue_fork(
        match.id, step, seat, owner.id, match.game, match.game_version, seats, seed
    )
    _log.info("fork_queued", match=forked, origin=match.id, step=step, seat=seat,
              owner=owner.name, bot=bot.label)  # fmt: skip
    return forked


def _replacement(store: Store, owner: Owner, match: Match, seated: Bot, bot_id: int) -> Bot:
    try:
        bot = store.bots.bot(bot_id)
    except StoreError as e:
        raise NotFound(str(e)) from None
    if bot.owner_id != owner.id:
        raise Denied(f"bot {bot.id} ({bot.label}) is {bot.owner}'s: choose a bot of yours")
    if bot.game != match.game:
        raise CannotFork(f"{bot.label} plays {bot.game}, match {match.id} is {match.game}: "
                         f"choose a {match.game} bot of yours")  # fmt: skip
    if bot.id == seated.id:
        raise CannotFork(f"{bot.label} already sits in that seat: choose another version")
    if bot.status not in FORKABLE or not bot.archive_hash:
        raise CannotFork(
            f"{bot.label} is {bot.status}: only a bot that passed its validation match "
            f"and is kept ({', '.join(FORKABLE)}) can play a fork"
        )
    return bot


def _within_bounds(store: Store, owner: Owner) -> None:
    if store.forks.pending(owner.id) >= MAX_PENDING:
        raise TooManyForks(
            f"{owner.name} has {MAX_PENDING} forks queued or running, the most at once: "
            "wait for one to finish"
        )
    if store.forks.since(owner.id, time.time() - 3600) >= PER_HOUR:
        raise TooManyForks(
            f"{owner.name} asked for {PER_HOUR} forks in the last hour, the most per "
            "hour: try again later"
        )


def _start(replay: Replay, match: Match, step: int) -> None:
    """Refuse a step the replay cannot be forked at, as the worker would."""
    last = len(replay.steps)
    if not 0 <= step < last:
        raise CannotFork(f"step {step}: match {match.id} can be replayed from step 0 to "
                         f"{last - 1}")  # fmt: skip
    try:
        _, state = fork_start(replay, step, match.replay_sha256 or "")
        replay.game()
    except (ForkRefused, ReplayError) as e:
        raise CannotFork(f"match {match.id} cannot be forked at step {step}: {e}") from None
    if state.is_over():
        raise CannotFork(f"step {step} of match {match.id} is the end of the game: "
                         "choose an earlier step")  # fmt: skip
