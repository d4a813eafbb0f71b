"""What every part of the store shares: its error, its states, and the connection."""

from __future__ import annotations

from niwa.errors import LadderError
from niwa.ladder.db import Database

SYSTEM_OWNER = "niwa"

# Bot statuses: only "active" bots are scheduled and ranked.
PENDING, ACTIVE, REJECTED, RETIRED, SUPERSEDED, RESERVE, SUSPENDED = (
    "pending",
    "active",
    "rejected",
    "retired",
    "superseded",
    "reserve",  # a built-in bot that only fills validation matches
    "suspended",  # went out of too many rated matches in a row (niwa.ladder.suspension)
)
# Match kinds and states.
RATED, VALIDATION = "rated", "validation"
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


class StoreError(LadderError, ValueError):
    """A request the store refuses (unknown id, duplicate name, ...)."""


class Part:
    """One concern of the store, on the connection all the parts share (so that one
    part's transaction holds another's statements too)."""

    def __init__(self, db: Database) -> None:
        self.db = db
