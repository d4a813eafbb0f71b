"""What a seat sees (observe) and the full states consistent with it (determinize).

Hidden in Blossom (blossom.md §3, §4): the hands, the face-down yard cards (their counts
are public), the mulligan returns, the removed cards and the deck. Everything else is
public, including ``known``: the cards every seat saw another take from the garden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from niwa.engine.api import JSON, Rng, envelope
from niwa.engine.rulesets.blossom import codec
from niwa.engine.rulesets.blossom.actions import Phase
from niwa.engine.rulesets.blossom.rules import (
    FULL_DECK,
    VERSION,
    counts_from_json,
    counts_to_json,
)

if TYPE_CHECKING:
    from niwa.engine.rulesets.blossom.state import BlossomState

_PLAY: Final = Phase.PLAY  # a global, not an enum class lookup, on every observation


def observation(state: BlossomState, seat: int | None) -> dict[str, JSON]:
    s = state
    obs: dict[str, JSON] = envelope(VERSION, seat, s.n, s.phase, s.to_move())
    obs |= {
        "dealer": s.dealer,
        "current": s.current if s.phase == _PLAY else None,
        "turn": s.turns,
        **codec.turn_fields(s),
        "deck": sum(s.deck),
        "removed": sum(s.removed),
        "garden": counts_to_json(s.garden),
        "pending_deals": list(s.queue),
        "mulligan_next": s.mulligan_next,
        "options": {"mulligan": s.mulligan, "cherryOverflowSource": s.overflow_source},
        "seats": [
            {
                "hand": sum(s.hands[i]),
                "yard_up": counts_to_json(s.ups[i]),
                "yard_down": sum(s.downs[i]),
                "returned": sum(s.returned[i]),
                "known": counts_to_json(s.known[i]),
            }
            for i in range(s.n)
        ],
    }
    if seat is not None:
        obs["hand"] = counts_to_json(s.hands[seat])
        obs["yard_down"] = counts_to_json(s.downs[seat])
        obs["returned"] = counts_to_json(s.returned[seat])
    return obs


#: Snapshot fields (codec.FIELDS) that the observation shows as they are: field -> key.
_PUBLIC: Final = {
    "players": "players",
    "options": "options",
    "phase": "phase",
    "dealer": "dealer",
    "queue": "pending_deals",
    "garden": "garden",
    "scores": "scores",
    "mulligan_next": "mulligan_next",
    "actions_done": "actions_done",
    "garden_drawn": "garden_drawn",
    "first_arranged": "first_arranged",
    "cherry": "cherry",
    "end_triggered": "end_triggered",
    "turns": "turn",
}


def determinized_fields(obs: Mapping[str, Any], seat: int, rng: Rng) -> dict[str, JSON]:
    """The snapshot fields of a full state ``seat`` cannot tell from the one it saw: the
    public fields as observed, the hidden cards dealt by :func:`_deal_unseen`."""
    seats = obs["seats"]
    current = obs["current"]
    if current is None:  # before play starts the state's ``current`` is the dealer, or 0
        current = obs["dealer"] if obs["dealer"] is not None else 0
    return (
        {field: obs[key] for field, key in _PUBLIC.items()}
        | _deal_unseen(obs, seat, rng)
        | {
            "yards_up": [s["yard_up"] for s in seats],
            "known": [s["known"] for s in seats],
            "current": current,
            "resume": _resume_for(obs),
        }
    )


def _deal_unseen(obs: Mapping[str, Any], seat: int, rng: Rng) -> dict[str, JSON]:
    """Deal the cards ``seat`` cannot see (other hands, face-down yards and mulligan
    returns, the removed cards and the deck) at random from the unseen ones, keeping the
    cards everyone knows another seat took from the garden among its hidden ones
    (``known``; which of them sit in the hand and which face down is sampled too)."""
    n = int(obs["players"])
    seats = obs["seats"]
    known = [[0] * 6 if s == seat else counts_from_json(seats[s]["known"]) for s in range(n)]
    unseen = list(FULL_DECK)
    seen = [obs["garden"], obs["hand"], obs["yard_down"], obs["returned"]]
    seen += [s["yard_up"] for s in seats]
    for part in [*(counts_from_json(p) for p in seen), *known]:
        for k in range(6):
            unseen[k] -= part[k]
    pool = [k for k in range(6) for _ in range(unseen[k])]
    rng.shuffle(pool)

    def take(count: int) -> list[int]:
        return [pool.pop() for _ in range(count)]

    hands, downs, returned = [], [], []
    for s in range(n):
        if s == seat:
            hands.append(obs["hand"])
            downs.append(obs["yard_down"])
            returned.append(obs["returned"])
            continue
        in_hand, face_down = int(seats[s]["hand"]), int(seats[s]["yard_down"])
        hidden = [k for k in range(6) for _ in range(known[s][k])]
        hidden += take(in_hand + face_down - len(hidden))
        rng.shuffle(hidden)
        hands.append(_counts(hidden[:in_hand]))
        downs.append(_counts(hidden[in_hand:]))
        returned.append(_counts(take(int(seats[s]["returned"]))))
    removed = _counts(take(int(obs["removed"])))
    deck = _counts(take(int(obs["deck"])))
    if pool:
        raise ValueError("observation is inconsistent: cards left over after dealing")
    return {
        "hands": hands,
        "yards_down": downs,
        "returned": returned,
        "removed": removed,
        "deck": deck,
    }


def _counts(cards: list[int]) -> dict[str, int]:
    out = [0] * 6
    for k in cards:
        out[k] += 1
    return counts_to_json(out)


def _resume_for(obs: Mapping[str, Any]) -> str:
    """What the pending chance deals lead to, read from the public phase of the game."""
    if obs["phase"] == "play":
        return "cherry" if obs["cherry"] is not None else "draw"
    if obs["dealer"] is None:
        return "dealer"
    if "garden" in obs["pending_deals"] or obs["phase"] == "mulligan":
        return "garden"
    return "dealt"
