"""The Blossom game object: info, options, new games, snapshots, determinization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.api import JSON, Game, GameInfo, Option, OptionError, Rng
from engine.rulesets.blossom import rules
from engine.rulesets.blossom.rules import KINDS, counts_from_json
from engine.rulesets.blossom.state import VERSION, BlossomState

INFO = GameInfo(
    name="blossom",
    version=VERSION,
    min_players=2,
    max_players=4,
    simultaneous=False,
    chance=True,
    hidden_information=True,
    options=(
        Option(
            "mulligan",
            "bool",
            False,
            "optional rule: after the hands are dealt each player may return cards once "
            "(blossom.md §9)",
        ),
        Option(
            "cherryOverflowSource",
            "choice",
            "deck",
            "where the cherry's 0-point draws come from with 3+ cards in hand "
            "(blossom.md §6, DECIDED default: deck)",
            choices=("deck", "garden"),
        ),
        Option(
            "dealer",
            "int",
            -1,
            "the seat that deals and starts; -1 draws it at random (blossom.md §4 PROPOSED)",
            minimum=-1,
            maximum=3,
        ),
    ),
)


class BlossomGame(Game):
    info = INFO

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> BlossomState:
        opts = self.info.validate(players, options)
        if opts["dealer"] >= players:
            raise OptionError(f"option 'dealer' must be a seat below {players} (or -1: random)")
        return BlossomState(players, opts)

    def from_json(self, data: Mapping[str, JSON]) -> BlossomState:
        return BlossomState.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> BlossomState:
        """Deal the cards ``seat`` cannot see (other hands, face-down yards and mulligan
        returns, the removed cards and the deck) at random from the unseen ones, keeping
        the cards everyone knows another seat took from the garden among its hidden ones
        (``known``; which of them sit in the hand and which face down is sampled too)."""
        obs = observation
        n = int(obs["players"])
        seats = obs["seats"]
        known = [[0] * 6 if s == seat else counts_from_json(seats[s]["known"]) for s in range(n)]
        unseen = list(rules.FULL_DECK)
        seen = [obs["garden"], obs["hand"], obs["yard_down"], obs["returned"]]
        seen += [s["yard_up"] for s in seats]
        for part in [*(counts_from_json(p) for p in seen), *known]:
            for k in range(6):
                unseen[k] -= part[k]
        pool = [k for k in range(6) for _ in range(unseen[k])]
        rng.shuffle(pool)

        def counts(cards: list[int]) -> dict[str, int]:
            out = [0] * 6
            for k in cards:
                out[k] += 1
            return dict(zip(KINDS, out, strict=True))

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
            hands.append(counts(hidden[:in_hand]))
            downs.append(counts(hidden[in_hand:]))
            returned.append(counts(take(int(seats[s]["returned"]))))
        removed = counts(take(int(obs["removed"])))
        deck = counts(take(int(obs["deck"])))
        if pool:
            raise ValueError("observation is inconsistent: cards left over after dealing")
        snapshot: dict[str, JSON] = {
            "game": VERSION,
            "players": n,
            "options": dict(obs["options"]),
            "phase": obs["phase"],
            "dealer": obs["dealer"],
            "queue": list(obs["pending_deals"]),
            "resume": _resume_for(obs),
            "deck": deck,
            "removed": removed,
            "garden": obs["garden"],
            "hands": hands,
            "yards_up": [s["yard_up"] for s in seats],
            "yards_down": downs,
            "returned": returned,
            "known": [s["known"] for s in seats],
            "scores": list(obs["scores"]),
            "mulligan_next": obs["mulligan_next"],
            "current": obs["current"] if obs["current"] is not None else _current_for(obs),
            "actions_done": obs["actions_done"],
            "garden_drawn": obs["garden_drawn"],
            "first_arranged": obs["first_arranged"],
            "cherry": obs["cherry"],
            "end_triggered": obs["end_triggered"],
            "turns": obs["turn"],
        }
        return BlossomState.from_json(snapshot)


def _current_for(obs: Mapping[str, JSON]) -> int:
    """Before play starts, the state's ``current`` is the dealer (or 0 before one is drawn)."""
    return int(obs["dealer"]) if obs["dealer"] is not None else 0


def _resume_for(obs: Mapping[str, JSON]) -> str:
    """What the pending chance deals lead to, read from the public phase of the game."""
    if obs["phase"] == "play":
        return "cherry" if obs["cherry"] is not None else "draw"
    queue = obs["pending_deals"]
    if obs["dealer"] is None:
        return "dealer"
    if "garden" in queue or obs["phase"] == "mulligan":
        return "garden"
    return "dealt"
