"""Bonsai rules data, loaded once from the bundled JSON files into constants.

Cells are doubled-width hex coordinates ``(u, v)`` (bonsai.md §6.2): ``v`` is the row,
growing upward, the bud sits at (0, 0) and a cell exists where ``u + v`` is even.
Inside the engine a cell is one int (:func:`key`) so trees are plain ``dict[int, int]``
and neighbour lookups are additions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from niwa.engine.snapshot import SnapshotFormat, data_digest

#: The rules version: snapshots and observations carry it (``game`` is name@version).
VERSION: Final = "bonsai@2"
#: The rules data files (data/); their SHA-256 stamps every snapshot (niwa.engine.snapshot).
DATA_FILES: Final = ("cards.json", "goals.json", "setup.json")

#: The stamp on every snapshot: game, rules version, SHA-256 of the data files.
SNAPSHOT: Final = SnapshotFormat(
    game="bonsai", rules=VERSION, data=data_digest("niwa.engine.rulesets.bonsai", DATA_FILES)
)


def _load(name: str) -> dict[str, Any]:
    text = (
        resources.files("niwa.engine.rulesets.bonsai").joinpath("data", name).read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


_CARDS = _load("cards.json")
_GOALS = _load("goals.json")
_SETUP = _load("setup.json")

# --- tiles -------------------------------------------------------------------------
TILES: Final[tuple[str, ...]] = tuple(_SETUP["tiles"])  # index = tile code
WOOD, LEAF, FLOWER, FRUIT = range(4)
ANY: Final = 4  # the wild slot of an allowance (bonsai.md §2.4)
TILE_CODE: Final[dict[str, int]] = {name: i for i, name in enumerate(TILES)}


# --- cards -------------------------------------------------------------------------
@dataclass(frozen=True)
class CardKind:
    """One kind of Zen card; copies of a kind are interchangeable (bonsai.md §2.2)."""

    kind: str
    type: str  # tool | growth | master | helper | parchment
    tile: int | None = None  # growth slot / helper shown tile
    tiles: tuple[int | None, ...] = ()  # master: tiles taken, None = wild (player picks)
    per: str = ""  # parchment: what it counts
    points: int = 0  # parchment: points per counted thing


def _kind(kind: str, d: dict[str, Any]) -> CardKind:
    t = d["type"]
    if t in ("growth", "helper"):
        return CardKind(kind, t, tile=TILE_CODE[d["tile"]])
    if t == "master":
        return CardKind(kind, t, tiles=tuple(TILE_CODE.get(x) for x in d["tiles"]))
    if t == "parchment":
        return CardKind(kind, t, per=d["per"], points=d["points"])
    return CardKind(kind, t)


CARD_KINDS: Final[dict[str, CardKind]] = {k: _kind(k, d) for k, d in _CARDS["kinds"].items()}
KIND_ORDER: Final[tuple[str, ...]] = tuple(CARD_KINDS)  # deterministic listing order


def deck_for(players: int) -> dict[str, int]:
    """The deck for ``players`` (bonsai.md §2.1, DECIDED): every card with minPlayers <= N."""
    return dict(_deck(players))  # a copy: every new game draws from its own


@cache
def _deck(players: int) -> dict[str, int]:
    deck: dict[str, int] = {}
    for card in _CARDS["cards"]:
        if card["minPlayers"] <= players:
            deck[card["kind"]] = deck.get(card["kind"], 0) + 1
    return deck


# --- board, seishi, set-up ---------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    take: tuple[int, ...]  # tiles always taken with the card
    choice: tuple[int, ...]  # one of these is taken too (slot 2: wood or leaf)


SLOTS: Final[tuple[Slot, ...]] = tuple(
    Slot(tuple(TILE_CODE[t] for t in s["take"]), tuple(TILE_CODE[t] for t in s["choice"]))
    for s in _SETUP["slots"]
)
BASE_CAPACITY: Final[int] = _SETUP["seishi"]["capacity"]
TOOL_CAPACITY: Final[int] = _SETUP["toolCapacity"]


def _allowance(names: list[str]) -> tuple[int, ...]:
    counts = [0] * 5
    for name in names:
        counts[ANY if name == "any" else TILE_CODE[name]] += 1
    return tuple(counts)


SEISHI_ALLOWANCE: Final[tuple[int, ...]] = _allowance(_SETUP["seishi"]["allowance"])
STARTING_TILES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(TILE_CODE[t] for t in seat) for seat in _SETUP["startingTiles"]
)
SOLO_STARTING_TILES: Final[tuple[int, ...]] = tuple(
    TILE_CODE[t] for t in _SETUP["soloStartingTiles"]
)
SOLO_LEVELS: Final[dict[str, int]] = dict(_SETUP["soloLevels"])
SOLO_SCENARIOS: Final[tuple[str, ...]] = tuple(_SETUP["soloScenarios"])
EMPEROR_TARGET: Final[int] = _SETUP["emperor"]["target"]
EMPEROR_GOAL_LEVEL: Final[str] = _SETUP["emperor"]["goalLevel"]
OPTION_DEFAULTS: Final[dict[str, Any]] = dict(_SETUP["options"])
SCORING: Final[dict[str, int]] = dict(_SETUP["scoring"])
GOAL_COLOURS_IN_PLAY: Final[int] = _SETUP["goalColoursInPlay"]


# --- goals -------------------------------------------------------------------------
@dataclass(frozen=True)
class Goal:
    id: str
    colour: str
    level: str  # low | mid | high
    style: str
    test: str
    need: int
    points: int


COLOURS: Final[tuple[str, ...]] = tuple(_GOALS["colours"])
GOALS: Final[dict[str, Goal]] = {g["id"]: Goal(**g) for g in _GOALS["goals"]}
GOAL_ORDER: Final[tuple[str, ...]] = tuple(GOALS)  # colour order, then low < mid < high


# --- geometry (bonsai.md §6) --------------------------------------------------------
#: key = (v + OFFSET) * SPAN + (u + OFFSET): keys stay distinct for |u|, |v| < 512,
#: far beyond any real tree.
SPAN: Final = 1024
OFFSET: Final = 512


def key(u: int, v: int) -> int:
    return (v + OFFSET) * SPAN + (u + OFFSET)


def coords(k: int) -> tuple[int, int]:
    v, u = divmod(k, SPAN)
    return u - OFFSET, v - OFFSET


#: Neighbour offsets in the cyclic order of bonsai.md §6.2:
#: (u+2,v), (u+1,v+1), (u-1,v+1), (u-2,v), (u-1,v-1), (u+1,v-1).
NEIGHBOURS: Final[tuple[int, ...]] = (2, SPAN + 1, SPAN - 1, -2, -SPAN - 1, -SPAN + 1)

BUD: Final[int] = key(*_SETUP["bud"])


def _pot(mirrored: bool) -> frozenset[int]:
    sign = -1 if mirrored else 1
    return frozenset(key(sign * u, int(v)) for v, us in _SETUP["pot"].items() for u in us)


#: Pot cells never hold a tile (bonsai.md §6.3); the flipped pot mirrors u (§6.7).
POT: Final[frozenset[int]] = _pot(False)
POT_FLIPPED: Final[frozenset[int]] = _pot(True)
RIGHT_FROM: Final[int] = _SETUP["potLines"]["rightFrom"]  # protrudesRight <=> u >= 6
LEFT_FROM: Final[int] = _SETUP["potLines"]["leftFrom"]  # protrudesLeft <=> u <= -4
BELOW_FROM: Final[int] = _SETUP["potLines"]["belowFrom"]  # below <=> v <= -2
