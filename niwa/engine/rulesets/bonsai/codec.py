"""Bonsai snapshots: ``to_json`` / ``from_json`` in the shared envelope (niwa.engine.snapshot).

The envelope (rules.SNAPSHOT) stamps a snapshot with the rules version and data SHA-256,
so a snapshot made with other rules or other data is refused with a clear error instead
of being misread; the state's own fields are listed in :data:`FIELDS`. Cells are written
``[u, v, tile]`` in doubled-width hex coordinates (bonsai.md §6.2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON
from niwa.engine.rulesets.bonsai.actions import Phase
from niwa.engine.rulesets.bonsai.rules import (
    ANY,
    KIND_ORDER,
    SNAPSHOT,
    TILE_CODE,
    TILES,
    coords,
    key,
)
from niwa.engine.rulesets.bonsai.seat import Seat

if TYPE_CHECKING:
    from niwa.engine.rulesets.bonsai.state import BonsaiState

#: The state's own fields, in snapshot order.
FIELDS = (
    "players",
    "options",
    "phase",
    "current",
    "goal_colours",
    "goals_open",
    "board",
    "deck",
    "discards",
    "burn",
    "end_triggered",
    "turns_left",
    "turn",
    "seats",
)

#: Makes a fresh state for a player count and options (BonsaiState itself).
Blank = Callable[[int, dict[str, Any]], "BonsaiState"]


def _multiset(d: Mapping[str, int]) -> dict[str, int]:
    return {k: d[k] for k in KIND_ORDER if d.get(k)}


def _allowance(a: list[int]) -> dict[str, int]:
    return {**{TILES[t]: a[t] for t in range(4)}, "any": a[ANY]}


def state_fields(s: BonsaiState) -> dict[str, JSON]:
    """The state's own fields: the snapshot's ``state``, and the body of observations."""
    return {
        "players": s.players,
        "options": dict(s.options),
        "phase": s.phase,
        "current": s.current,
        "goal_colours": list(s.goal_colours),
        "goals_open": list(s.goals_open),
        "board": list(s.board),
        "deck": {
            "top_parchments": _multiset(s.top_parchments),
            "top_others": s.top_others,
            "pool": _multiset(s.pool),
        },
        "discards": list(s.discards),
        "burn": s.burn,
        "end_triggered": s.end_triggered,
        "turns_left": s.turns_left,
        "turn": {
            "action": s.action,
            "card": s.card,
            "allowance": _allowance(s.allowance),
            "wild_tiles": s.wild_tiles,
            "pending_goals": list(s.pending_goals),
        },
        "seats": [_seat_json(seat) for seat in s.seats],
    }


def _seat_json(seat: Seat) -> dict[str, JSON]:
    return {
        "trees": [[[*coords(c), TILES[t]] for c, t in sorted(tree.items())] for tree in seat.trees],
        "active": seat.active,
        "supply": {TILES[t]: seat.supply[t] for t in range(4)},
        "cards": list(seat.cards),
        "claimed": list(seat.claimed),
        "claimed_on": list(seat.claimed_on),
        "renounced": list(seat.renounced),
        "pot_flipped": list(seat.flips),
    }


def to_json(s: BonsaiState) -> dict[str, JSON]:
    return SNAPSHOT.wrap(state_fields(s))


def from_json(snapshot: Any, blank: Blank) -> BonsaiState:
    """The state a snapshot holds; :class:`engine.SnapshotError` if it is not one."""
    return SNAPSHOT.load(snapshot, FIELDS, lambda d: _build(d, blank))


def _build(data: Mapping[str, Any], blank: Blank) -> BonsaiState:
    s = blank(int(data["players"]), dict(data["options"]))
    s.phase = Phase(str(data["phase"]))
    s.current = data["current"]
    s.goal_colours = list(data["goal_colours"])
    s.goals_open = list(data["goals_open"])
    s.board = list(data["board"])
    deck = data["deck"]
    s.top_parchments = _multiset(deck["top_parchments"])
    s.top_others = deck["top_others"]
    s.pool = _multiset(deck["pool"])  # in KIND_ORDER, as deck.draw_odds relies on
    s.discards = list(data["discards"])
    s.burn = data["burn"]
    s.end_triggered = data["end_triggered"]
    s.turns_left = data["turns_left"]
    turn = data["turn"]
    s.action = turn["action"]
    s.card = turn["card"]
    a = turn["allowance"]
    s.allowance = [a[t] for t in TILES] + [a["any"]]
    s.wild_tiles = turn["wild_tiles"]
    s.pending_goals = list(turn["pending_goals"])
    s.seats = [_seat_from_json(seat) for seat in data["seats"]]
    return s


def _seat_from_json(seat: Mapping[str, Any]) -> Seat:
    return Seat(
        [{key(u, v): TILE_CODE[t] for u, v, t in tree} for tree in seat["trees"]],
        [bool(f) for f in seat["pot_flipped"]],
        [seat["supply"][t] for t in TILES],
        list(seat["cards"]),
        list(seat["claimed"]),
        list(seat["renounced"]),
        seat["active"],
        list(seat["claimed_on"]),
    )
