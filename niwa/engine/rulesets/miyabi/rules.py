"""Miyabi's rules data (data/*.json) as constants, the option schema, and the geometry.

Everything the two known rulebook pages do not print comes from ``data/config.json``
(miyabi.md §0) as a game option; :func:`rules_for` turns one validated option set into a
frozen :class:`Rules` with the tile orientations and board footprints precomputed, so
``legal_actions`` and ``apply`` only look things up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any, Final

from niwa.engine.api import Option, OptionError, canonical_json
from niwa.engine.rulesets.miyabi.actions import Phase
from niwa.engine.snapshot import SnapshotFormat, data_digest

#: The rules version: snapshots and observations carry it (``game`` is name@version).
VERSION = "miyabi@2"
#: The rules data files (data/); their SHA-256 stamps every snapshot (niwa.engine.snapshot).
DATA_FILES = ("board.json", "tiles.json", "config.json")
#: The phases of a game: the round's tiles are dealt (chance), a seat takes a tile or
#: passes, then places it; ``over`` after the last round (miyabi.md §5.1).
PHASES = tuple(Phase)

#: The stamp on every snapshot: game, rules version, SHA-256 of the data files.
SNAPSHOT: Final = SnapshotFormat(
    game="miyabi", rules=VERSION, data=data_digest("niwa.engine.rulesets.miyabi", DATA_FILES)
)


def _load(name: str) -> dict[str, Any]:
    text = files("niwa.engine.rulesets.miyabi").joinpath("data", name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_BOARD = _load("board.json")
_TILES = _load("tiles.json")
_CONFIG = _load("config.json")

SIZE: int = _BOARD["size"]["value"]  # miyabi.md §2.1
LANTERNS: int = _BOARD["lanternsPerPlayer"]["value"]  # one per column, miyabi.md §5.2
BONUS_LAYER: int = _BOARD["bonusLayer"]["value"]  # miyabi.md §6.2
FIRST_START_PLAYER: int = _BOARD["firstStartPlayer"]["value"]  # miyabi.md §4
CLOCKWISE: int = _BOARD["clockwise"]["value"]  # miyabi.md §5.1
TYPES: tuple[str, ...] = tuple(_BOARD["rows"]["value"])  # TYPES[r] lives in row r + 1
SHAPES: tuple[str, ...] = tuple(_TILES["shapes"]["value"])
SHAPE_OBJECTS: tuple[int, ...] = tuple(
    _TILES["shapes"]["value"][s]["objects"] for s in SHAPES
)  # objects on a tile = its cells, miyabi.md §3.1
CELLS = SIZE * SIZE
NKINDS = len(SHAPES) * len(TYPES)

# The 96 tiles (miyabi.md §3.3, PROPOSED), as counts per kind.
TILE_SET: tuple[int, ...] = tuple(_TILES["tileSet"]["value"][t][s] for s in SHAPES for t in TYPES)

Offsets = tuple[tuple[int, int], ...]


def kind_of(shape: int, obj: int) -> int:
    """A tile kind (shape, object type) as one index into count lists."""
    return shape * len(TYPES) + obj


def shape_of(kind: int) -> int:
    return kind // len(TYPES)


def type_of(kind: int) -> int:
    return kind % len(TYPES)


#: Per tile kind: its shape, its object type, the objects on it (tables for hot loops).
KIND_SHAPE: tuple[int, ...] = tuple(shape_of(k) for k in range(NKINDS))
KIND_TYPE: tuple[int, ...] = tuple(type_of(k) for k in range(NKINDS))
KIND_OBJECTS: tuple[int, ...] = tuple(SHAPE_OBJECTS[shape_of(k)] for k in range(NKINDS))
#: Per tile kind: (shape name, object name), as actions spell them.
KIND_NAMES: tuple[tuple[str, str], ...] = tuple(
    (SHAPES[shape_of(k)], TYPES[type_of(k)]) for k in range(NKINDS)
)
#: (shape name, object name) -> tile kind.
KIND_BY_NAMES: dict[tuple[str, str], int] = {names: k for k, names in enumerate(KIND_NAMES)}
#: Per shape: its kinds, in object-type order.
SHAPE_KINDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(kind_of(s, t) for t in range(len(TYPES))) for s in range(len(SHAPES))
)


def _option(entry: Mapping[str, Any]) -> Option:
    return Option(
        name=entry["name"],
        kind=entry["type"],
        default=entry["default"],
        description=f"{entry['description']} ({entry['status']}, {entry['section']})",
        choices=tuple(entry.get("choices", ())),
        minimum=entry.get("minimum"),
        maximum=entry.get("maximum"),
    )


OPTIONS: tuple[Option, ...] = tuple(_option(e) for e in _CONFIG["options"])


def rotate(offsets: Offsets, k: int) -> Offsets:
    """Turn a tile k quarter turns: (dr, dc) -> (dc, -dr) each time (miyabi.md §3.1)."""
    for _ in range(k):
        offsets = tuple((dc, -dr) for dr, dc in offsets)
    return offsets


def orientations(offsets: Offsets, allow_rotation: bool) -> tuple[tuple[int, Offsets], ...]:
    """The distinct orientations (rotation k, offsets); a symmetric tile keeps the
    smallest k of each footprint so legal actions have no duplicates."""
    seen: set[frozenset[tuple[int, int]]] = set()
    out: list[tuple[int, Offsets]] = []
    for k in range(4 if allow_rotation else 1):
        turned = rotate(offsets, k)
        key = frozenset(turned)
        if key not in seen:
            seen.add(key)
            out.append((k, turned))
    return tuple(out)


def footprint(offsets: Offsets, row: int, col: int) -> tuple[int, ...] | None:
    """Flat cell indices (row * SIZE + col) of a tile whose object cell is at (row, col),
    object cell first; None if any cell leaves the grid (miyabi.md §5.3 P4)."""
    cells = []
    for dr, dc in offsets:
        r, c = row + dr, col + dc
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            return None
        cells.append(r * SIZE + c)
    return tuple(cells)


@dataclass(frozen=True)
class Orientation:
    rotation: int
    offsets: Offsets
    # footprints[row * SIZE + col]: the cells covered with the object cell there, or None
    footprints: tuple[tuple[int, ...] | None, ...]


#: One way a tile fits a column: orientation, covered cells, their bit mask.
Fit = tuple[Orientation, tuple[int, ...], int]


@dataclass(frozen=True)
class Rules:
    """One game's settings: the validated options, read into the shapes the code needs."""

    options: Mapping[str, Any]
    options_json: str  # the options in canonical JSON, as every snapshot spells them
    rounds: int
    tiles_per_round: tuple[int, ...]  # per shape, for this player count
    bonus_points: tuple[int, ...]  # per object type
    bonus_at_least: bool
    majority_first: int
    majority_second: int
    tie_first: str
    tie_second: str
    min_objects: int
    max_layer: int  # 0: no limit
    covered_count: bool
    voluntary_pass: bool
    colorful_garden: int  # points per object, 0 when the variant is off
    big_meadow: int  # points per cell, 0 when the variant is off
    shapes: tuple[tuple[Orientation, ...], ...]  # per shape, its distinct orientations
    # fits[kind][col]: (orientation, cells, mask of the cells) for the object cell in the
    # kind's row at col, every cell inside the grid (P1, P4 settled once, so placement
    # only checks heights)
    fits: tuple[tuple[tuple[Fit, ...], ...], ...]
    # spots[kind]: the kind's fits by column, as (column, ((first cell, mask of the
    # cells), ...)) for each column with any: what Garden.placeable walks, a column
    # whose lantern is lit skipped at once
    spots: tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...], ...]
    # rotations[shape][rotation]: the orientation a listed place action names
    rotations: tuple[dict[int, Orientation], ...]
    # fit_at[kind][col][rotation]: fits[kind][col]'s entry of that rotation
    fit_at: tuple[tuple[dict[int, Fit], ...], ...]


def _shape_orientations(shape: str, cell_choice: str, allow: bool) -> tuple[Orientation, ...]:
    raw = _TILES["shapes"]["value"][shape]["objectCell"][cell_choice]
    offsets: Offsets = tuple((int(dr), int(dc)) for dr, dc in raw)
    # the object cell goes first, so footprint()[0] is always the object cell
    offsets = ((0, 0), *(o for o in offsets if o != (0, 0)))
    return tuple(
        Orientation(
            rotation=k,
            offsets=turned,
            footprints=tuple(footprint(turned, r, c) for r in range(SIZE) for c in range(SIZE)),
        )
        for k, turned in orientations(offsets, allow)
    )


def _cell_choice(shape: str, options: Mapping[str, Any]) -> str:
    choices = list(_TILES["shapes"]["value"][shape]["objectCell"])
    name = f"objectCell.{shape}"
    return str(options[name]) if name in options else choices[0]


def _fits(
    shapes: tuple[tuple[Orientation, ...], ...],
) -> tuple[tuple[tuple[Fit, ...], ...], ...]:
    table = []
    for kind in range(NKINDS):
        row = type_of(kind)  # P1: the object cell lies in its type's row
        table.append(
            tuple(
                tuple(
                    (o, cells, sum(1 << c for c in cells))
                    for o in shapes[shape_of(kind)]
                    if (cells := o.footprints[row * SIZE + col]) is not None
                )
                for col in range(SIZE)
            )
        )
    return tuple(table)


@cache
def _rules(players: int, options_json: str) -> Rules:
    o: dict[str, Any] = json.loads(options_json)
    allow = bool(o["allowRotation"])
    shapes = tuple(_shape_orientations(s, _cell_choice(s, o), allow) for s in SHAPES)
    fits = _fits(shapes)
    return Rules(
        options=o,
        options_json=options_json,
        rounds=o[f"roundsByPlayers.{players}"],
        tiles_per_round=tuple(o[f"tilesPerRound.{s}"] * players for s in SHAPES),
        bonus_points=tuple(o[f"bonusLayer5Points.{t}"] for t in TYPES),
        bonus_at_least=o["bonusLayerMode"] == "atLeast",
        majority_first=o["majorityPoints.first"],
        majority_second=o["majorityPoints.second"],
        tie_first=o["majorityTieFirst"],
        tie_second=o["majorityTieSecond"],
        min_objects=o["majorityMinObjects"],
        max_layer=o["maxLayer"],
        covered_count=bool(o["coveredObjectsCount"]),
        voluntary_pass=bool(o["voluntaryPass"]),
        colorful_garden=o["colorfulGarden.pointsPerObject"] if o["colorfulGarden"] else 0,
        big_meadow=o["bigMeadow.pointsPerCell"] if o["bigMeadow"] else 0,
        shapes=shapes,
        fits=fits,
        spots=tuple(
            tuple(
                (col, tuple((cells[0], mask) for _, cells, mask in at_col))
                for col, at_col in enumerate(by_col)
                if at_col
            )
            for by_col in fits
        ),
        rotations=tuple({o.rotation: o for o in by_shape} for by_shape in shapes),
        fit_at=tuple(
            tuple({fit[0].rotation: fit for fit in at_col} for at_col in by_col) for by_col in fits
        ),
    )


def rules_for(players: int, options: Mapping[str, Any]) -> Rules:
    """The Rules for validated, complete options (cached: many states share one)."""
    if f"roundsByPlayers.{players}" not in options:
        raise OptionError(f"miyabi: no round count for {players} players; play with 2 to 4")
    return _rules(players, canonical_json(dict(options)))
