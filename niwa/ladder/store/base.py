"""What every part of the store shares: its error, its states, and the connection."""

from __future__ import annotations

from niwa.errors import LadderError
from niwa.ladder.db import Database
from niwa.ladder.statuses import BotStatus, MatchKind, MatchState

SYSTEM_OWNER = "niwa"

# Short names for the statuses (niwa.ladder.statuses spells them).
PENDING, ACTIVE, REJECTED, RETIRED = (
    BotStatus.PENDING, BotStatus.ACTIVE, BotStatus.REJECTED, BotStatus.RETIRED,
)  # fmt: skip
SUPERSEDED, RESERVE, SUSPENDED = BotStatus.SUPERSEDED, BotStatus.RESERVE, BotStatus.SUSPENDED
RATED, VALIDATION, CHALLENGE = MatchKind.RATED, MatchKind.VALIDATION, MatchKind.CHALLENGE
FORKED = MatchKind.FORKED
#: The source of the pseudo-bot a person plays as (niwa.ladder.challenges): never a
#: program, so nothing but a person's page can play its seat.
HUMAN_SOURCE = "human"
QUEUED, RUNNING, DONE, FAILED = (
    MatchState.QUEUED, MatchState.RUNNING, MatchState.DONE, MatchState.FAILED,
)  # fmt: skip


class StoreError(LadderError, ValueError):
    """A request the store refuses (unknown id, duplicate name, ...)."""


class Part:
    """One concern of the store, on the connection all the parts share (so that one
    part's transaction holds another's statements too)."""

    def __init__(self, db: Database) -> None:
        self.db = db
