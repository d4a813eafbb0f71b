"""Blossom snapshots: ``to_json``/``from_json`` through the engine's snapshot envelope.

The envelope (niwa.engine.snapshot) stamps every snapshot with the rules version and the
SHA-256 of data/rules.json; ``state`` holds the fields below, multisets spelled
``{kind: count}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from niwa.engine.api import JSON
from niwa.engine.rulesets.blossom.actions import Phase
from niwa.engine.rulesets.blossom.rules import (
    DATA_FILES,
    KIND_INDEX,
    KINDS,
    VERSION,
    counts_from_json,
    counts_to_json,
)
from niwa.engine.snapshot import SnapshotFormat, data_digest

if TYPE_CHECKING:
    from niwa.engine.rulesets.blossom.state import BlossomState

FORMAT: Final = SnapshotFormat(
    "blossom", VERSION, data_digest("niwa.engine.rulesets.blossom", DATA_FILES)
)

FIELDS: Final = frozenset(
    {
        "players",
        "options",
        "phase",
        "dealer",
        "queue",
        "resume",
        "deck",
        "removed",
        "garden",
        "hands",
        "yards_up",
        "yards_down",
        "returned",
        "known",
        "scores",
        "mulligan_next",
        "current",
        "actions_done",
        "garden_drawn",
        "first_arranged",
        "cherry",
        "end_triggered",
        "turns",
    }
)


def encode(s: BlossomState) -> dict[str, JSON]:
    """The snapshot fields of ``s`` (the envelope's ``state``)."""
    return {
        "players": s.n,
        "options": {"mulligan": s.mulligan, "cherryOverflowSource": s.overflow_source},
        "phase": s.phase,
        "dealer": s.dealer,
        "queue": list(s.queue),
        "resume": s.resume,
        "deck": counts_to_json(s.deck),
        "removed": counts_to_json(s.removed),
        "garden": counts_to_json(s.garden),
        "hands": [counts_to_json(h) for h in s.hands],
        "yards_up": [counts_to_json(y) for y in s.ups],
        "yards_down": [counts_to_json(y) for y in s.downs],
        "returned": [counts_to_json(r) for r in s.returned],
        "known": [counts_to_json(k) for k in s.known],
        "mulligan_next": s.mulligan_next,
        "current": s.current,
        "turns": s.turns,
        **turn_fields(s),
    }


def turn_fields(s: BlossomState) -> dict[str, JSON]:
    """The public turn progress and scores, spelled the same in snapshots and views."""
    return {
        "actions_done": s.actions_done,
        "garden_drawn": s.garden_drawn,
        "first_arranged": None if s.first_arranged is None else KINDS[s.first_arranged],
        "cherry": None if s.cherry is None else dict(s.cherry),
        "end_triggered": s.end_triggered,
        "scores": list(s.scores),
    }


def decode(d: Mapping[str, JSON], cls: type[BlossomState]) -> BlossomState:
    """A state of class ``cls`` from the snapshot fields ``d`` (see :func:`encode`)."""
    s = object.__new__(cls)
    s._legal = None
    s.n = int(d["players"])
    s.mulligan = bool(d["options"]["mulligan"])
    s.overflow_source = str(d["options"]["cherryOverflowSource"])
    s.phase = Phase(str(d["phase"]))
    s.dealer = d["dealer"]
    s.queue = list(d["queue"])
    s.resume = str(d["resume"])
    s.deck = counts_from_json(d["deck"])
    s.removed = counts_from_json(d["removed"])
    s.garden = counts_from_json(d["garden"])
    s.hands = [counts_from_json(h) for h in d["hands"]]
    s.ups = [counts_from_json(y) for y in d["yards_up"]]
    s.downs = [counts_from_json(y) for y in d["yards_down"]]
    s.returned = [counts_from_json(r) for r in d["returned"]]
    s.known = [counts_from_json(k) for k in d["known"]]
    s.scores = [int(x) for x in d["scores"]]
    s.mulligan_next = d["mulligan_next"]
    s.current = int(d["current"])
    s.actions_done = int(d["actions_done"])
    s.garden_drawn = bool(d["garden_drawn"])
    fa = d["first_arranged"]
    s.first_arranged = None if fa is None else KIND_INDEX[fa]
    s.cherry = None if d["cherry"] is None else dict(d["cherry"])
    s.end_triggered = bool(d["end_triggered"])
    s.turns = int(d["turns"])
    return s
