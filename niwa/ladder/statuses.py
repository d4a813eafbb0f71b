"""The ladder's states, spelled once: a bot's status, a match's state and its kind.

The values are what the store keeps and the API sends, so they never change; every
other module names them through these enums (``tests/test_status_spellings.py``
looks for stray spellings).
"""

from __future__ import annotations

from enum import StrEnum


class BotStatus(StrEnum):
    """Only ``ACTIVE`` bots are scheduled and ranked."""

    PENDING = "pending"  # submitted, its validation match not yet played
    ACTIVE = "active"
    REJECTED = "rejected"  # failed its validation match
    RETIRED = "retired"
    SUPERSEDED = "superseded"  # an older version of a bot that has a newer one active
    RESERVE = "reserve"  # a built-in bot that only fills validation matches
    SUSPENDED = "suspended"  # went out of too many rated matches in a row (niwa.ladder.suspension)


class MatchState(StrEnum):
    """queued -> running (claimed) -> done, or back to queued, or failed after retries."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class MatchKind(StrEnum):
    RATED = "rated"
    VALIDATION = "validation"  # a new bot's first match: it decides whether it goes active
    # a person's challenge of a bot, unrated (niwa.ladder.challenges; a rated one is RATED)
    CHALLENGE = "challenge"
    # an owner's replay of a finished match from step N with another version of theirs
    # in one seat, unrated (niwa.ladder.forks; "fork" names the CLI's command already)
    FORKED = "forked"
