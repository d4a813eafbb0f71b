"""A person challenges a ladder bot: the match runs in the web process that serves the
person's page (the page must reach the seat's :class:`niwa.referee.human.Desk`), in
that process's trio run, with the bot sandboxed as the runner would run it.

- A challenge is a match in the store like any other, added as running so no runner
  claims it; its replay names the person's seat ``human:OWNER`` as ``niwa play
  --human`` does, and it is stored when it ends however it ends (a closed tab is
  DISCONNECTED after the grace period, like a bot that stops answering).
- Unrated by default (kind ``challenge``: Elo untouched). With ``niwa ladder serve
  --challenges rated`` they are rated matches, and the person sits as the game's one
  shared ``human`` row (source :data:`HUMAN_SOURCE`), which the leaderboard ranks on
  the same scale as the bots; the scheduler never seats it.
- Bounded: one challenge per owner at a time, :data:`MAX_CHALLENGES` in the process
  (``--max-challenges``).
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

import structlog
import trio

from niwa import engine
from niwa.errors import LadderError
from niwa.ladder import metrics, submission, worker
from niwa.ladder.http_server import sole
from niwa.ladder.store import (
    ACTIVE,
    CHALLENGE,
    HUMAN_SOURCE,
    RATED,
    RETIRED,
    SYSTEM_OWNER,
    Bot,
    Owner,
    Store,
    StoreError,
)
from niwa.referee.clock import HUMAN_TIME_MS, TimeControl
from niwa.referee.human import GRACE_S, Desk, shows_views
from niwa.referee.match import BotSpec, MatchOutcome, MatchSpec, run_match

#: Challenges playing at once in one web process unless ``--max-challenges`` says.
MAX_CHALLENGES = 4
#: A person's clock in a challenge (niwa play --human's default).
HUMAN_TIME = TimeControl(*HUMAN_TIME_MS)
#: The store's setting that says whether challenges are rated ("rated") or not.
SETTING = "challenges"
RATED_CHOICE, UNRATED_CHOICE = str(RATED), "unrated"
CHOICES = (UNRATED_CHOICE, RATED_CHOICE)
#: The name and version of each game's row a person plays as.
HUMAN_NAME, HUMAN_ROW_VERSION = "human", "1"
#: Why a challenge still running when its web process started again was ended.
ABANDONED = "the web process playing this challenge stopped before the match ended"

_log = structlog.get_logger("niwa.ladder.challenges")


class ChallengeRefused(LadderError):
    """A challenge that cannot start now; the message names why and what to do."""


def set_rated(store: Store, rated: bool) -> None:
    store.settings.set_setting(SETTING, RATED_CHOICE if rated else UNRATED_CHOICE)


def are_rated(store: Store) -> bool:
    """Whether a challenge starting now is rated (the admin's choice; unrated if never made)."""
    return store.settings.setting(SETTING) == RATED_CHOICE


def human_row(store: Store, game: str, rated: bool) -> Bot:
    """The ``human`` row of ``game`` (made on first use): active, so on the
    leaderboard, while challenges are rated; retired (kept for its matches) while not."""
    found = store.bots.find_builtin(HUMAN_SOURCE, HUMAN_NAME, HUMAN_ROW_VERSION, game)
    if found is None:
        owner = store.owners.system_owner()
        try:
            found = store.bots.add_bot(
                HUMAN_NAME, HUMAN_ROW_VERSION, game, owner.id, HUMAN_SOURCE, None, RETIRED
            )
        except StoreError:  # made meanwhile by another web process
            found = store.bots.find_builtin(HUMAN_SOURCE, HUMAN_NAME, HUMAN_ROW_VERSION, game)
            if found is None:
                raise
    wanted = ACTIVE if rated else RETIRED
    if found.status != wanted:
        reason = "" if rated else "challenges are unrated: the admin may rate them"
        store.bots.set_bot_status(found.id, wanted, reason)
        found = store.bots.bot(found.id)
    return found


def table_size(game: str) -> int:
    """Seats at a challenge of ``game``: the fewest the game plays with (at least two)."""
    return max(engine.load(game).info.min_players, 2)


def is_human_row(bot: Bot) -> bool:
    return bot.source == HUMAN_SOURCE and bot.owner == SYSTEM_OWNER


@dataclass
class Challenge:
    """One challenge being played: its match, the person and the seat's desk. ``key``
    is the secret path of the person's page."""

    match_id: int
    game: str
    owner: Owner
    bot: Bot
    seat: int
    seats: tuple[int, ...]  # the ladder's bot per seat (the person's: the human row)
    names: list[str]
    desk: Desk
    spec: MatchSpec
    key: str = field(default_factory=lambda: secrets.token_urlsafe(18))


class Challenges:
    """The challenges one web process plays. :meth:`open` runs in the web server's
    worker threads (it writes the store); :meth:`play` in its trio run."""

    def __init__(
        self, store: Store, time_control: str = "1s+30s", cap: int = MAX_CHALLENGES,
        grace_s: float = GRACE_S, human_time: TimeControl = HUMAN_TIME,
        rng: random.Random | None = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.time_control = TimeControl.parse(time_control)  # a bad one fails at start-up
        self.cap = cap
        self.grace_s = grace_s
        self.human_time = human_time
        self.rng = rng or random.SystemRandom()
        self._lock = threading.Lock()
        self._by_owner: dict[int, Challenge] = {}
        self._by_key: dict[str, Challenge] = {}

    def abandon_leftovers(self) -> list[int]:
        """End (failed) the challenges a stopped web process left running: nothing can
        play their person's seat any more. Call once, before serving."""
        ended = self.store.matches.fail_abandoned_challenges(ABANDONED)
        if ended:
            _log.warning("challenges_abandoned", matches=ended)
        return ended

    def at(self, key: str) -> Challenge | None:
        with self._lock:
            return self._by_key.get(key)

    def of(self, owner: Owner) -> Challenge | None:
        with self._lock:
            return self._by_owner.get(owner.id)

    def open(self, owner: Owner, bot_id: int, seat: int | None = None) -> Challenge:
        """Add ``owner``'s challenge of bot ``bot_id`` to the store (running) and return
        it, to be played with :meth:`play`; ChallengeRefused naming why not."""
        bot = self.store.bots.bot(bot_id)
        if bot.status != ACTIVE or is_human_row(bot):
            raise ChallengeRefused(
                f"{bot.label} is {bot.status}, not an active bot: challenge an active one "
                "(see the leaderboard)"
            )
        info = engine.load(bot.game).info
        players = table_size(bot.game)
        seat = self.rng.randrange(players) if seat is None else seat
        if not 0 <= seat < players:
            raise ChallengeRefused(f"seat {seat}: a {bot.game} challenge has seats 0 to "
                                   f"{players - 1}")  # fmt: skip
        with self._lock:
            if owner.id in self._by_owner:
                playing = self._by_owner[owner.id]
                raise ChallengeRefused(
                    f"you are already playing match {playing.match_id}: finish it (or close "
                    f"its page and wait {self.grace_s:g} s) before the next challenge"
                )
            if len(self._by_owner) >= self.cap:
                raise ChallengeRefused(
                    f"{self.cap} challenges are being played, the most this ladder plays at "
                    "once: try again in a few minutes"
                )
            challenge = self._add(owner, bot, info.version, players, seat)
            self._by_owner[owner.id] = challenge
            self._by_key[challenge.key] = challenge
        _log.info("challenge_opened", match=challenge.match_id, game=bot.game,
                  owner=owner.name, bot=bot.label, seat=seat)  # fmt: skip
        return challenge

    def _add(self, owner: Owner, bot: Bot, version: str, players: int, seat: int) -> Challenge:
        """The match in the store, and how the referee plays it."""
        rated = are_rated(self.store)
        person = human_row(self.store, bot.game, rated)
        others = [bot.id]
        if players > 2:  # the other seats: the built-in that plays validation matches
            filler = submission.builtin_bot(self.store, submission.VALIDATION_OPPONENT, bot.game)
            others += [filler.id] * (players - 2)
        seats = [*others[:seat], person.id, *others[seat:]]
        specs = [self._spec(b) for b in others]  # before the match is added: it may fail
        specs.insert(seat, BotSpec.parse(f"human:{owner.name}"))
        seed = self.rng.getrandbits(62)
        match_id = self.store.matches.queue_match(
            bot.game, version, seats, seed, kind=RATED if rated else CHALLENGE, running=True
        )
        desk = Desk(seat, grace_s=self.grace_s)
        files = self.store.files
        files.replay_path(match_id).parent.mkdir(parents=True, exist_ok=True)
        files.log_dir(match_id).mkdir(parents=True, exist_ok=True)
        spec = MatchSpec(
            game=bot.game, bots=specs, seed=seed, time_control=self.time_control,
            sandbox=True,  # the ladder never runs a submitted bot outside the sandbox
            require_limits=True, in_process=True,  # built-ins are our code
            replay_path=files.attempt_replay_path(match_id, 1),
            log_dir=files.log_dir(match_id), match_id=str(match_id),
            replay_stderr=False,  # replays are public; the store keeps the stderr tails
            humans={seat: desk}, on_step=shows_views({seat: desk}),
            human_time=self.human_time,
        )  # fmt: skip
        names = [str(s.label or s) for s in specs]
        return Challenge(match_id, bot.game, owner, bot, seat, tuple(seats), names, desk, spec)

    def _spec(self, bot_id: int) -> BotSpec:
        bot = self.store.bots.bot(bot_id)
        if bot.source.startswith("builtin:"):
            return BotSpec.parse(bot.source)
        folder = submission.unpacked(self.store, bot.archive_hash or "")
        return replace(BotSpec.parse(str(folder)), label=bot.label)  # as the runner names it

    async def play(self, challenge: Challenge) -> None:
        """Play the challenge to its end and record it (a match the referee could not
        play is recorded failed); the person's page keeps its key until it has the
        final board."""
        log = _log.bind(match=challenge.match_id, game=challenge.game, owner=challenge.owner.name)
        recorded, error = False, ""
        try:
            outcome = await run_match(challenge.spec)
            await trio.to_thread.run_sync(self._record, challenge, outcome)
            recorded = True
            log.info("challenge_recorded", places=list(outcome.result.places))
        except Exception as e:  # the referee could not run it: no one's failure
            cause = sole(e)
            error = f"{type(cause).__name__}: {cause}"
            log.error("challenge_failed", error=error, exc_info=cause)
        finally:  # also when cancelled (a group holding Cancelled, from the referee's nursery)
            if not recorded:
                error = error or "the ladder stopped while the challenge was played"
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(
                        self.store.matches.fail_match, challenge.match_id, error, 0
                    )
                if not challenge.desk.closed:
                    challenge.desk.end(None, f"the match could not be played: {error}")
            with self._lock:
                self._by_owner.pop(challenge.owner.id, None)
            await self._linger(challenge)

    async def _linger(self, challenge: Challenge, seconds: float = 10.0) -> None:
        """Keep the page's key a little, while its page gets the final board."""
        with trio.move_on_after(seconds):
            while challenge.desk.pages:
                await trio.sleep(0.05)
        with self._lock:
            self._by_key.pop(challenge.key, None)

    def _record(self, challenge: Challenge, outcome: MatchOutcome) -> None:
        played = challenge.spec.replay_path
        assert played is not None
        data = Path(played).read_bytes()
        finished = worker.finished(outcome, challenge.seats, hashlib.sha256(data).hexdigest())
        if self.store.matches.match(challenge.match_id).kind == RATED:
            # a rated challenge counts in its game's balance, like any rated match
            figures = worker.balance_of(Path(played), _log.bind(match=challenge.match_id))
            finished = replace(finished, balance=figures)
        if self.store.matches.finish_match(challenge.match_id, finished, data, 1):
            os.replace(played, self.store.files.replay_path(challenge.match_id))
            kind = self.store.matches.match(challenge.match_id).kind
            metrics.count_recorded(challenge.game, kind, finished)
        else:
            Path(played).unlink(missing_ok=True)
