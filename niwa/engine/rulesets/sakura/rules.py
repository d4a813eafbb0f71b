"""Sakura rules data: the card lists, the garden path and the fixed numbers.

Everything here is loaded once from the bundled ``data/*.json`` files (sakura.md §3, §4,
§5, §7), so a real card list or board can replace the proposed ones without code changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from niwa.engine.api import Option

#: The game's version string (``GameInfo.version`` and every observation's ``game``).
VERSION: Final = "sakura@3"
#: The data files the rules are read from (hashed into every snapshot).
DATA_FILES: Final = ("board.json", "cards.json", "config.json")

# sakura.md §2.1: garden actions.
EMP_FWD_1: Final = "EMP_FWD_1"
EMP_FWD_2: Final = "EMP_FWD_2"
EMP_BACK_1: Final = "EMP_BACK_1"
EMP_FWD_OR_BACK_1: Final = "EMP_FWD_OR_BACK_1"
CLOSEST_BACK_2: Final = "CLOSEST_BACK_2"
FURTHEST_FWD_2: Final = "FURTHEST_FWD_2"
GARDEN_ACTIONS: Final = (
    EMP_FWD_1,
    EMP_FWD_2,
    EMP_BACK_1,
    EMP_FWD_OR_BACK_1,
    CLOSEST_BACK_2,
    FURTHEST_FWD_2,
)

# sakura.md §2.2: painter actions.
FWD: Final = ("FWD_1", "FWD_2", "FWD_3")
FWD_OR_BACK: Final = ("FWD_OR_BACK_1", "FWD_OR_BACK_2", "FWD_OR_BACK_3")
JUMP_AHEAD: Final = "JUMP_AHEAD"
COUNT_AHEAD: Final = "COUNT_AHEAD"
PAINTER_ACTIONS: Final = (*FWD, *FWD_OR_BACK, JUMP_AHEAD, COUNT_AHEAD)

#: Actions whose direction the card's owner chooses when the card resolves (§2).
CHOICE_ACTIONS: Final = frozenset({EMP_FWD_OR_BACK_1, *FWD_OR_BACK})

GARDEN_TEXT: Final = {
    EMP_FWD_1: "Emperor forward 1",
    EMP_FWD_2: "Emperor forward 2",
    EMP_BACK_1: "Emperor back 1",
    EMP_FWD_OR_BACK_1: "Emperor forward or back 1",
    CLOSEST_BACK_2: "closest painter back 2",
    FURTHEST_FWD_2: "furthest painter forward 2",
}
PAINTER_TEXT: Final = {
    "FWD_1": "forward 1",
    "FWD_2": "forward 2",
    "FWD_3": "forward 3",
    "FWD_OR_BACK_1": "forward or back 1",
    "FWD_OR_BACK_2": "forward or back 2",
    "FWD_OR_BACK_3": "forward or back 3",
    JUMP_AHEAD: "jump ahead",
    COUNT_AHEAD: "count ahead",
}


def distance(painter_action: str) -> int:
    """The printed distance of a FWD_n / FWD_OR_BACK_n action."""
    return int(painter_action.rsplit("_", 1)[1])


@dataclass(frozen=True)
class Card:
    """One card: its unique order number and its two actions (sakura.md §2)."""

    number: int
    garden: str
    painter: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "garden": self.garden, "painter": self.painter}

    def text(self) -> str:
        return f"card {self.number} ({GARDEN_TEXT[self.garden]}; {PAINTER_TEXT[self.painter]})"


@dataclass(frozen=True)
class Board:
    """The garden path for one player count (sakura.md §4.2, §4.3).

    Index 0 is the gate; 1..length are path spaces; the last sakura is ``length``."""

    length: int
    torii: int
    sakura: tuple[int, ...]
    bridges: tuple[tuple[int, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "torii": self.torii,
            "sakura": list(self.sakura),
            "bridges": [list(b) for b in self.bridges],
        }


@dataclass(frozen=True)
class Config:
    """Fixed numbers of the game (sakura.md §1, §5, §7)."""

    hand_size: int
    starting_tokens: int
    neutral_tokens: int
    colours: int
    rewards: tuple[int, ...]
    last_sakura_first_reward: int
    fourth_place_from_players: int
    fourth_place_reward: int
    bump_loss: int
    bump_back: int
    options: tuple[Option, ...]

    def rewards_for(self, players: int, last: bool) -> tuple[int, ...]:
        """Tokens for 1st, 2nd, ... at a sakura (sakura.md §7)."""
        rewards = list(self.rewards)
        if last:
            rewards[0] = self.last_sakura_first_reward
        if players >= self.fourth_place_from_players:
            rewards.append(self.fourth_place_reward)
        return tuple(rewards)


def _load(name: str) -> Any:
    text = resources.files("niwa.engine.rulesets.sakura").joinpath("data", name).read_text("utf-8")
    return json.loads(text)


@cache
def decks() -> dict[str, dict[int, Card]]:
    """Every card list by ``deckMix`` name, each keyed by order number."""
    out: dict[str, dict[int, Card]] = {}
    for mix, deck in _load("cards.json")["decks"].items():
        out[mix] = card_list(mix, deck["cards"])
    return out


def card_list(mix: str, rows: list[list[Any]]) -> dict[int, Card]:
    """Cards from ``[number, garden, painter]`` rows, checked: order numbers are unique
    so cards never tie (sakura.md §3.1), and every action is one of §2."""
    cards = {n: Card(n, g, p) for n, g, p in rows}
    if len(cards) != len(rows):
        raise ValueError(f"cards.json deck {mix!r} repeats an order number; each must be unique")
    for c in cards.values():
        if c.garden not in GARDEN_ACTIONS or c.painter not in PAINTER_ACTIONS:
            raise ValueError(f"cards.json deck {mix!r}: card {c.number} names an unknown action")
    return cards


@cache
def board_for(players: int) -> Board:
    """The path used with ``players`` players (bridges are 1 or 3 spaces, §4.1)."""
    for layout in _load("board.json")["layouts"]:
        if players in layout["players"]:
            return board_from(layout)
    raise ValueError(f"board.json has no layout for {players} players")


def board_from(layout: dict[str, Any]) -> Board:
    """A board from one board.json layout, checked against the index model of §4.2: the
    torii lies before the first sakura and the last sakura is the last space."""
    board = Board(
        length=layout["length"],
        torii=layout["torii"],
        sakura=tuple(layout["sakura"]),
        bridges=tuple(tuple(b) for b in layout["bridges"]),
    )
    spaces = [board.torii, *board.sakura, *(q for b in board.bridges for q in b)]
    if not all(1 <= q <= board.length for q in spaces):
        raise ValueError(
            f"board.json layout {layout['players']}: a landmark lies off the path 1..{board.length}"
        )
    if list(board.sakura) != sorted(set(board.sakura)) or board.sakura[-1] != board.length:
        raise ValueError(
            f"board.json layout {layout['players']}: sakura spaces must rise "
            "and the last one must be the last space (length)"
        )
    if board.torii >= board.sakura[0]:
        raise ValueError(
            f"board.json layout {layout['players']}: the torii must come before the first sakura"
        )
    return board


@cache
def config() -> Config:
    raw = _load("config.json")
    options = tuple(
        Option(
            name=o["name"],
            kind=o["type"],
            default=o["default"],
            description=o["description"],
            choices=tuple(o.get("choices", ())),
        )
        for o in raw["options"]
    )
    return Config(
        hand_size=raw["handSize"],
        starting_tokens=raw["startingTokens"],
        neutral_tokens=raw["neutralTokens"],
        colours=raw["colours"],
        rewards=tuple(raw["rewards"]),
        last_sakura_first_reward=raw["lastSakuraFirstReward"],
        fourth_place_from_players=raw["fourthPlaceRewardFromPlayers"],
        fourth_place_reward=raw["fourthPlaceReward"],
        bump_loss=raw["bumpLoss"],
        bump_back=raw["bumpBack"],
        options=options,
    )
