"""Miyabi snapshots: ``to_json`` / ``from_json`` in the shared envelope (niwa.engine.snapshot).

The envelope (rules.SNAPSHOT) stamps a snapshot with the rules version and data SHA-256,
so a snapshot made with other rules or other data is refused with a clear error instead
of being misread; the state's own fields are listed in :data:`FIELDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON
from niwa.engine.rulesets.miyabi.actions import Phase
from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.rules import (
    KIND_BY_NAMES,
    KIND_NAMES,
    NKINDS,
    PHASES,
    SHAPES,
    SNAPSHOT,
    TYPES,
    Rules,
    kind_of,
    rules_for,
    shape_of,
    type_of,
)
from niwa.engine.rulesets.miyabi.shared_json import encode, fill, hole

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.state import MiyabiState

#: The state's own fields, in snapshot order.
FIELDS = (
    "players",
    "options",
    "round",
    "rounds",
    "start_player",
    "phase",
    "current",
    "chosen",
    "to_deal",
    "supply",
    "display",
    "removed",
    "bonus_tiles",
    "gardens",
)

#: Makes a fresh state for a rules set and player count (MiyabiState itself).
Blank = Callable[[Rules, int], "MiyabiState"]


def counts_json(counts: list[int]) -> dict[str, dict[str, int]]:
    """Tile counts per kind as {shape: {object: n}}, zero counts left out."""
    out: dict[str, dict[str, int]] = {s: {} for s in SHAPES}
    for (shape, obj), n in zip(KIND_NAMES, counts, strict=True):
        if n:
            out[shape][obj] = n
    return out


def counts_from_json(d: Mapping[str, Mapping[str, int]]) -> list[int]:
    counts = [0] * NKINDS
    for shape, by_type in d.items():
        for obj, n in by_type.items():
            counts[KIND_BY_NAMES[shape, obj]] = int(n)  # KeyError for a name of no kind
    return counts


def kind_json(kind: int) -> dict[str, str]:
    return {"shape": SHAPES[shape_of(kind)], "object": TYPES[type_of(kind)]}


def kind_from_json(d: Any) -> int:
    return kind_of(SHAPES.index(d["shape"]), TYPES.index(d["object"]))


def state_fields(s: MiyabiState) -> dict[str, JSON]:
    """The state's own fields: the snapshot's ``state``, and the body of observations.
    The tiles in the gardens are shared with every other snapshot (read-only)."""
    rules = s.rules
    return _fields(s, dict(rules.options), [g.to_json(rules) for g in s.gardens])


def _fields(s: MiyabiState, options: JSON, gardens: list[dict[str, JSON]]) -> dict[str, JSON]:
    return {
        "players": s.players,
        "options": options,
        "round": s.round,
        "rounds": s.rules.rounds,
        "start_player": s.start,
        "phase": s.phase,
        "current": s.current,
        "chosen": None if s.chosen < 0 else kind_json(s.chosen),
        "to_deal": {shape: n for shape, n in zip(SHAPES, s.to_deal, strict=True)},
        "supply": counts_json(s.supply),
        "display": counts_json(s.display),
        "removed": counts_json(s.removed),
        "bonus_tiles": {t: s.rules.bonus_points[i] for i, t in enumerate(TYPES) if s.bonus_left[i]},
        "gardens": gardens,
    }


def to_json(s: MiyabiState) -> dict[str, JSON]:
    return SNAPSHOT.wrap(state_fields(s))


def to_text(s: MiyabiState) -> str:
    """``canonical_json(to_json(s))``, the text ``engine.state_hash`` digests: the
    snapshot with holes for the options and each garden's tiles is encoded, then the
    holes are filled with their kept text, so no tile is encoded again."""
    rules = s.rules
    pieces = [rules.options_json, *(f"[{g.tiles_text(rules)}]" for g in s.gardens)]
    gardens = [{"tiles": hole(i), **g.fields()} for i, g in enumerate(s.gardens, 1)]
    return fill(encode(SNAPSHOT.wrap(_fields(s, hole(0), gardens))), pieces)


def from_json(snapshot: Any, blank: Blank) -> MiyabiState:
    """The state a snapshot holds; :class:`engine.SnapshotError` if it is not one."""
    return SNAPSHOT.load(snapshot, FIELDS, lambda d: _build(d, blank))


def _build(d: Mapping[str, Any], blank: Blank) -> MiyabiState:
    players = int(d["players"])
    rules = rules_for(players, d["options"])
    s = blank(rules, players)
    s.round, s.start = int(d["round"]), int(d["start_player"])
    phase, s.current = str(d["phase"]), int(d["current"])
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}")
    s.phase = Phase(phase)
    chosen = d["chosen"]
    s.chosen = -1 if chosen is None else kind_from_json(chosen)
    s.to_deal = [int(d["to_deal"][shape]) for shape in SHAPES]
    s.supply = counts_from_json(d["supply"])
    s.display = counts_from_json(d["display"])
    s.removed = counts_from_json(d["removed"])
    s.bonus_left = [t in d["bonus_tiles"] for t in TYPES]
    s.gardens = [Garden.from_json(rules, g) for g in d["gardens"]]
    return s
