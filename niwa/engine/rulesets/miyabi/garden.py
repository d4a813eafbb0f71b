"""One player's garden board: stacked tiles, heights, lanterns (miyabi.md §2.1, §5.3).

Cells are flat indices ``row * SIZE + col`` with 0-based row and column inside the code;
actions and observations use the rules data's 1-based (r, c).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import compress
from typing import Any, NamedTuple

from niwa.engine.rulesets.miyabi.rules import (
    CELLS,
    KIND_BY_NAMES,
    KIND_OBJECTS,
    KIND_SHAPE,
    KIND_TYPE,
    LANTERNS,
    NKINDS,
    SHAPES,
    SIZE,
    TYPES,
    Orientation,
    Rules,
    shape_of,
    type_of,
)
from niwa.engine.rulesets.miyabi.shared_json import FrozenDict, FrozenList, encode


class Placed(NamedTuple):
    """A tile on the board: its kind, object cell (0-based), rotation and layer."""

    kind: int
    row: int
    col: int
    rotation: int
    layer: int


class Placement(NamedTuple):
    """A legal way to put a tile down: object cell column, orientation, cells, layer."""

    col: int
    orientation: Orientation
    cells: tuple[int, ...]
    layer: int


#: A Placement's fields as a plain tuple: column, orientation, cells, layer.
Spot = tuple[int, Orientation, tuple[int, ...], int]

#: Every cell's bit set: the level mask of a bare board.
ALL_CELLS = (1 << CELLS) - 1
#: Every kind, in order.
KINDS = range(NKINDS)
#: Per kind: tile counts with one tile of that kind only (can_place asks placeable).
ONE_KIND = tuple(tuple(int(k == kind) for k in range(NKINDS)) for kind in range(NKINDS))
#: A hint that never fits (no level holds every bit of -1), before a spot is found.
NO_HINT = (0, 0, -1)
#: A height no stack reaches: the layer limit when the maxLayer option is 0 (none).
NO_LIMIT = 1 << 30


class Garden:
    """Heights and top tiles per cell, the tiles in order, lanterns and score.

    Besides the heights, ``levels[h]`` is the bit mask of the cells at height ``h``,
    kept up to date by :meth:`place`: a footprint lies flat (P5/P6) when its mask is
    inside the level of its first cell, one AND instead of a walk over its cells. Each
    tile's JSON is made once, when a snapshot first needs it, and its canonical text
    once, when a text first does (an observation for a bot, a state hash; a search's
    observations never do), and both are shared by every later snapshot (shared_json):
    a snapshot's cost does not grow with the tiles beyond copying one list and joining
    one string per garden."""

    __slots__ = (
        "_hints",
        "_texted",
        "_tiles_json",
        "_tiles_text",
        "bonuses",
        "end",
        "heights",
        "kept_features",
        "kept_view",
        "lanterns",
        "levels",
        "passed",
        "score",
        "tiles",
        "top",
    )

    def __init__(self) -> None:
        self.heights = [0] * CELLS  # tiles stacked on each cell (0 = bare board)
        self.levels = [ALL_CELLS]  # levels[h]: mask of the cells at height h
        self.top = [-1] * CELLS  # index into tiles of the uppermost tile, -1 if bare
        self.tiles: list[Placed] = []
        self._tiles_json: list[FrozenDict] = []  # the first tiles' JSON, never changed
        self._tiles_text = ""  # the first _texted tiles' canonical JSON, comma-separated
        self._texted = 0
        # per kind: the spot (column, first cell, mask) that fitted last (placeable)
        self._hints = [NO_HINT] * NKINDS
        self.lanterns = [False] * LANTERNS  # per column: filled this round
        self.passed = False
        self.score = 0
        self.bonuses: list[int] = []  # object types whose layer-5 bonus this player took
        self.end: dict[str, int] = {}  # end-of-game points by heading, once scored
        # views.py's derived fields of an observation and the tile count they are for
        self.kept_view: tuple[int, dict[str, Any]] | None = None
        # features.py's encoded garden (a copy of a feature row's slice: the engine
        # imports no numpy) and the (tiles, score, passed, *lanterns) it is for
        self.kept_features: tuple[tuple[Any, ...], Any] | None = None

    def clone(self) -> Garden:
        g = Garden.__new__(Garden)
        g.heights = self.heights[:]
        g.levels = self.levels[:]
        g.top = self.top[:]
        g.tiles = self.tiles[:]
        g._tiles_json = self._tiles_json[:]
        g._tiles_text = self._tiles_text
        g._texted = self._texted
        g._hints = self._hints[:]
        g.lanterns = self.lanterns[:]
        g.passed = self.passed
        g.score = self.score
        g.bonuses = self.bonuses[:]
        g.end = dict(self.end)
        g.kept_view = self.kept_view
        g.kept_features = self.kept_features
        return g

    def done(self) -> bool:
        """Out of this round: passed, or every lantern field filled (miyabi.md §5.1)."""
        return self.passed or all(self.lanterns)

    # placement (miyabi.md §5.3)
    def placements(self, rules: Rules, kind: int) -> Iterator[Placement]:
        """Every legal placement of a tile of ``kind``, by column then rotation."""
        for spot in self.open_spots(rules, kind):
            yield Placement(*spot)

    def open_spots(self, rules: Rules, kind: int) -> list[Spot]:
        """:meth:`placements` as plain tuples, for the legal-action listing: most listed
        spots are never played, so no Placement is built for them."""
        heights, levels, limit = self.heights, self.levels, rules.max_layer or NO_LIMIT
        lanterns, out = self.lanterns, []
        for col, fits in enumerate(rules.fits[kind]):
            if lanterns[col]:  # P2: that column's lantern field must be empty
                continue
            for orientation, cells, mask in fits:  # P1 and P4 hold for these
                h = heights[cells[0]]
                # P5/P6: flat on one level; P11: not above maxLayer
                if levels[h] & mask == mask and h < limit:
                    out.append((col, orientation, cells, h + 1))
        return out

    def placement_at(self, rules: Rules, kind: int, col: int, rotation: int) -> Placement | None:
        """The placement with the object cell in ``col`` (0-based, in the kind's row) and
        that rotation if :meth:`open_spots` lists it, else None: one spot's test."""
        fit = rules.fit_at[kind][col].get(rotation)
        if fit is None or self.lanterns[col]:
            return None
        orientation, cells, mask = fit
        h = self.heights[cells[0]]
        if self.levels[h] & mask == mask and h < (rules.max_layer or NO_LIMIT):
            return Placement(col, orientation, cells, h + 1)
        return None

    def can_place(self, rules: Rules, kind: int) -> bool:
        """Whether ``placements`` would yield anything, without building a Placement."""
        return bool(self.placeable(rules, ONE_KIND[kind]))

    def placeable(self, rules: Rules, counts: Sequence[int]) -> list[int]:
        """The kinds with a tile in ``counts`` that fit somewhere, in kind order; one
        loop for them all, as the choose step asks this for every tile in the middle on
        every turn (a call per kind cost more than its test). The spot that fitted last
        time for a kind is tried first: it usually still fits, so the answer rarely
        needs a walk over every footprint."""
        heights, levels, lanterns, hints = self.heights, self.levels, self.lanterns, self._hints
        limit, all_spots, out = rules.max_layer or NO_LIMIT, rules.spots, []
        for kind in compress(KINDS, counts):  # the kinds with a tile, picked out in C
            col, cell, mask = hints[kind]
            h = heights[cell]
            if not lanterns[col] and levels[h] & mask == mask and h < limit:
                out.append(kind)
                continue
            for col, spots in all_spots[kind]:
                if not lanterns[col]:
                    for cell, mask in spots:
                        h = heights[cell]
                        if levels[h] & mask == mask and h < limit:
                            hints[kind] = col, cell, mask
                            out.append(kind)
                            break
                    else:
                        continue
                    break
        return out

    def place(self, kind: int, placement: Placement) -> None:
        """Lay the tile (P8: it may cover anything) and fill the column's lantern."""
        index = len(self.tiles)
        heights, levels, top = self.heights, self.levels, self.top
        for c in placement.cells:
            h = heights[c]
            heights[c] = h + 1
            top[c] = index
            bit = 1 << c
            levels[h] &= ~bit
            if h + 1 == len(levels):
                levels.append(0)
            levels[h + 1] |= bit
        row = KIND_TYPE[kind]
        tile = Placed(kind, row, placement.col, placement.orientation.rotation, placement.layer)
        self.tiles.append(tile)
        self.lanterns[placement.col] = True

    # what is visible on top (miyabi.md §6.3, §8)
    def visible_object_cells(self) -> list[int]:
        """Objects showing on each cell (0 for bare, green or covered)."""
        out = [0] * CELLS
        tiles = self.tiles
        for cell, index in enumerate(self.top):
            if index >= 0:
                t = tiles[index]
                if cell == t.row * SIZE + t.col:
                    out[cell] = KIND_OBJECTS[t.kind]
        return out

    def green_cells(self) -> list[bool]:
        """Cells whose top is a plain green cell of a tile."""
        out = [False] * CELLS
        tiles = self.tiles
        for cell, index in enumerate(self.top):
            if index >= 0:
                t = tiles[index]
                out[cell] = cell != t.row * SIZE + t.col
        return out

    def objects_by_type(self, covered: bool = False) -> list[int]:
        """Objects per type: visible ones only, or all placed when ``covered``."""
        counts = [0] * len(TYPES)
        if covered:
            for t in self.tiles:
                counts[t.row] += KIND_OBJECTS[t.kind]
            return counts
        tiles = self.tiles
        for cell, index in enumerate(self.top):
            if index >= 0:
                t = tiles[index]
                if cell == t.row * SIZE + t.col:
                    counts[t.row] += KIND_OBJECTS[t.kind]
        return counts

    # JSON
    def _write_tiles(self, rules: Rules) -> None:
        """Make the JSON of the tiles placed since the last snapshot."""
        done = len(self._tiles_json)
        if done < len(self.tiles):
            self._tiles_json += [_tile_json(t, tile_cells(rules, t)) for t in self.tiles[done:]]

    def fields(self) -> dict[str, Any]:
        """The snapshot's fields but the tiles, in snapshot order."""
        return {
            "lanterns": self.lanterns[:],
            "passed": self.passed,
            "score": self.score,
            "bonuses": [TYPES[t] for t in self.bonuses],
            "end_scoring": dict(self.end),
        }

    def to_json(self, rules: Rules) -> dict[str, Any]:
        """The garden's snapshot; the list of tiles is new, the tiles in it are shared
        (read-only) with every other snapshot of this garden."""
        self._write_tiles(rules)
        return {"tiles": self._tiles_json[:], **self.fields()}

    def tiles_text(self, rules: Rules) -> str:
        """The tiles in canonical JSON, comma-separated (without the brackets)."""
        self._write_tiles(rules)
        done = self._texted
        if done < len(self._tiles_json):
            text = encode(self._tiles_json[done:])[1:-1]
            self._tiles_text = f"{self._tiles_text},{text}" if done else text
            self._texted = len(self._tiles_json)
        return self._tiles_text

    @classmethod
    def from_json(cls, rules: Rules, d: Mapping[str, Any]) -> Garden:
        """The garden a snapshot holds. Each tile only raises its cells and tops them
        (what :meth:`place` does); the level masks are made once at the end, from the
        heights: a tile costs a few lookups, so rebuilding a late garden (determinize
        reads every observation this way) stays cheap."""
        g = cls()
        heights, top, tiles, rotations = g.heights, g.top, g.tiles, rules.rotations
        for index, t in enumerate(d["tiles"]):
            kind = KIND_BY_NAMES[t["shape"], t["object"]]
            orientation = rotations[KIND_SHAPE[kind]][t["rotation"]]
            row, col = t["row"] - 1, t["col"] - 1
            cells = orientation.footprints[row * SIZE + col]
            assert cells is not None, f"a stored tile leaves the grid: {t}"
            layer = heights[cells[0]] + 1
            for c in cells:
                heights[c] += 1
                top[c] = index
            tiles.append(Placed(kind, KIND_TYPE[kind], col, orientation.rotation, layer))
        levels = g.levels = [0] * (max(heights) + 1)
        for c, h in enumerate(heights):
            levels[h] |= 1 << c
        g.lanterns = [bool(x) for x in d["lanterns"]]
        g.passed = bool(d["passed"])
        g.score = int(d["score"])
        g.bonuses = [TYPES.index(t) for t in d["bonuses"]]
        g.end = {str(k): int(v) for k, v in d["end_scoring"].items()}
        return g


def tile_cells(rules: Rules, t: Placed) -> tuple[int, ...]:
    orientation = next(o for o in rules.shapes[shape_of(t.kind)] if o.rotation == t.rotation)
    cells = orientation.footprints[t.row * SIZE + t.col]
    assert cells is not None
    return cells


def _tile_json(t: Placed, cells: tuple[int, ...]) -> FrozenDict:
    return FrozenDict(
        shape=SHAPES[shape_of(t.kind)],
        object=TYPES[type_of(t.kind)],
        row=t.row + 1,
        col=t.col + 1,
        rotation=t.rotation,
        layer=t.layer,
        cells=FrozenList(FrozenList((c // SIZE + 1, c % SIZE + 1)) for c in cells),
    )
