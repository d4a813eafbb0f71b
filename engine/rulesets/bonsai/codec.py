"""JSON snapshots and observations of a Bonsai state.

Nothing in Bonsai is secret from a player with a perfect memory: every card a player
holds was taken face up from the board, and the deck is an unordered multiset whose
contents follow from the cards seen so far (DECIDED, see docs/games/bonsai.md). So an
observation is the full snapshot plus a few derived fields (scores, capacities, deck
size), and determinize only has to read the snapshot back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine import JSON, envelope

from .rules import ANY, EMPEROR_TARGET, KIND_ORDER, SOLO_LEVELS, TILE_CODE, TILES, coords, key

if TYPE_CHECKING:
    from .state import BonsaiState

VERSION = "bonsai@1"
#: Observation fields that are not part of the snapshot (the envelope's ``game`` stands
#: for the snapshot's ``version``).
DERIVED = ("game", "seat", "to_move", "scores", "capacity", "deck_size", "solo")


def _multiset(d: Mapping[str, int]) -> dict[str, int]:
    return {k: d[k] for k in KIND_ORDER if d.get(k)}


def _allowance(a: list[int]) -> dict[str, int]:
    return {**{TILES[t]: a[t] for t in range(4)}, "any": a[ANY]}


def state_to_json(s: BonsaiState) -> dict[str, JSON]:
    return {
        "version": VERSION,
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
        "seats": [
            {
                "trees": [
                    [[*coords(c), TILES[t]] for c, t in sorted(tree.items())] for tree in seat.trees
                ],
                "active": seat.active,
                "supply": {TILES[t]: seat.supply[t] for t in range(4)},
                "cards": list(seat.cards),
                "claimed": list(seat.claimed),
                "claimed_on": list(seat.claimed_on),
                "renounced": list(seat.renounced),
                "pot_flipped": list(seat.flips),
            }
            for seat in s.seats
        ],
    }


def state_from_json(data: Mapping[str, Any]) -> BonsaiState:
    from .seat import Seat
    from .state import BonsaiState

    if data.get("version") != VERSION:
        raise ValueError(f"not a {VERSION} snapshot (version {data.get('version')!r})")
    s = BonsaiState(int(data["players"]), dict(data["options"]))
    s.phase = data["phase"]
    s.current = data["current"]
    s.goal_colours = list(data["goal_colours"])
    s.goals_open = list(data["goals_open"])
    s.board = list(data["board"])
    deck = data["deck"]
    s.top_parchments = dict(deck["top_parchments"])
    s.top_others = deck["top_others"]
    s.pool = dict(deck["pool"])
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
    s.seats = [
        Seat(
            [{key(u, v): TILE_CODE[t] for u, v, t in tree} for tree in seat["trees"]],
            [bool(f) for f in seat["pot_flipped"]],
            [seat["supply"][t] for t in TILES],
            list(seat["cards"]),
            list(seat["claimed"]),
            list(seat["renounced"]),
            seat["active"],
            list(seat["claimed_on"]),
        )
        for seat in data["seats"]
    ]
    return s


def observe(s: BonsaiState, seat: int | None) -> dict[str, JSON]:
    """The envelope every niwa game starts with (game, seat, players, phase, to_move),
    then the snapshot (all public, see the module docstring) and derived fields."""
    snapshot = state_to_json(s)
    del snapshot["version"]
    view = envelope(VERSION, seat, s.players, s.phase, s.to_move())
    view.update(snapshot)
    view["scores"] = s.scores()
    view["capacity"] = [me.capacity() for me in s.seats]
    view["deck_size"] = s.deck_size()
    view["solo"] = (
        {
            "scenario": s.options["soloScenario"],
            "level": None if s.emperor else s.options["soloLevel"],
            "target": EMPEROR_TARGET if s.emperor else SOLO_LEVELS[s.options["soloLevel"]],
            "goals_claimed": len(s.seats[0].claimed),
            "won": s.solo_won(),
        }
        if s.solo
        else None
    )
    return view


def from_observation(observation: Mapping[str, Any]) -> BonsaiState:
    """Rebuild the state an observation shows (nothing is hidden, see above)."""
    if observation.get("game") != VERSION:
        raise ValueError(f"not a {VERSION} observation (game {observation.get('game')!r})")
    snapshot = {k: v for k, v in observation.items() if k not in DERIVED}
    return state_from_json({**snapshot, "version": VERSION})
