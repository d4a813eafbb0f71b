"""What a bonsai offers the rules, kept up to date tile by tile instead of rescanned.

A :class:`Growth` follows one tree: the empty cells next to wood and next to leaves
(where tiles may go, bonsai.md §6.6), the tile counts, the leaf groups (union-find) and
the side-line flags of the goals (§6.5). Placing a tile only ever adds to them, so
:meth:`Growth.add` updates them in a few steps; a removed tile or a flipped pot is rare
and rebuilds them from the tree (:func:`growth_of`). The from-scratch functions of
tree.py stay the reference: tests check both agree on random games.
"""

from __future__ import annotations

from niwa.engine.rulesets.bonsai.rules import (
    BELOW_FROM,
    FLOWER,
    FRUIT,
    LEAF,
    LEFT_FROM,
    NEIGHBOURS,
    OFFSET,
    RIGHT_FROM,
    SPAN,
    WOOD,
)
from niwa.engine.rulesets.bonsai.tree import Tree, fruit_fits

#: Indices into Growth.past: side (0 right, 2 left) + height (0 above, 1 below).
RIGHT, LEFT, UP, BELOW = 0, 2, 0, 1
#: The goal tests Growth.measure answers, in the order of Growth.levels().
MEASURES = ("wood", "leafGroup", "fruit", "flowersOneSide")
#: The kengai levels, in the order of Growth.levels() after MEASURES.
KENGAI_LEVELS = ("low", "mid", "high")


class Growth:
    """The incremental measures of one tree (see the module docstring)."""

    __slots__ = (
        "counts",
        "flowers",
        "leaf_adj",
        "leaf_best",
        "leaf_root",
        "leaf_size",
        "levels_at",
        "levels_seen",
        "past",
        "pot",
        "sign",
        "size",
        "tree",
        "wood_adj",
    )

    def __init__(self, tree: Tree, pot: frozenset[int], flipped: bool) -> None:
        self.tree = tree  # the dict followed; a different dict means a rebuild
        self.size = 0  # tiles seen, checked against len(tree) as a guard
        self.pot = pot
        self.sign = -1 if flipped else 1
        self.wood_adj: set[int] = set()  # empty non-pot cells next to wood
        self.leaf_adj: set[int] = set()  # empty non-pot cells next to a leaf
        self.counts = [0, 0, 0, 0]  # tiles per tile code
        self.leaf_root: dict[int, int] = {}  # union-find parent of each leaf
        self.leaf_size: dict[int, int] = {}  # group size, at each root
        self.leaf_best = 0
        self.flowers = [0, 0]  # flowers past the right line, past the left line
        # kengai flags (tree.kengai_levels): a tile past a side line (RIGHT, LEFT),
        # above the bottom line or below it (UP, BELOW), indexed side + height
        self.past = [False, False, False, False]
        # levels() as of ``levels_at`` tiles: goals are checked every turn, the tree
        # grows on few of them
        self.levels_at = -1
        self.levels_seen: tuple[int, ...] = ()

    def copy(self, tree: Tree) -> Growth:
        g = Growth.__new__(Growth)
        g.tree, g.size, g.pot, g.sign = tree, self.size, self.pot, self.sign
        g.wood_adj, g.leaf_adj = set(self.wood_adj), set(self.leaf_adj)
        g.counts = list(self.counts)
        g.leaf_root, g.leaf_size = dict(self.leaf_root), dict(self.leaf_size)
        g.leaf_best = self.leaf_best
        g.flowers, g.past = list(self.flowers), list(self.past)
        g.levels_at, g.levels_seen = self.levels_at, self.levels_seen
        return g

    def current(self, tree: Tree) -> bool:
        return self.tree is tree and self.size == len(tree)

    def add(self, cell: int, tile: int) -> None:
        """Account for ``tile`` just put on ``cell`` (already in the tree)."""
        tree, pot = self.tree, self.pot
        self.size += 1
        self.counts[tile] += 1
        self.wood_adj.discard(cell)
        self.leaf_adj.discard(cell)
        if tile in (WOOD, LEAF):
            adj = self.wood_adj if tile == WOOD else self.leaf_adj
            for d in NEIGHBOURS:
                n = cell + d
                if n not in tree and n not in pot:
                    adj.add(n)
        if tile == LEAF:
            self._join_leaf(cell)
        u = self.sign * (cell % SPAN - OFFSET)
        # past the right line (the gold-crack side) or the left one, else neither
        side = RIGHT if u >= RIGHT_FROM else LEFT if u <= LEFT_FROM else -1
        if side >= 0:
            self.past[side + (BELOW if cell // SPAN - OFFSET <= BELOW_FROM else UP)] = True
            if tile == FLOWER:
                self.flowers[side // 2] += 1

    def _find(self, cell: int) -> int:
        root = self.leaf_root
        while root[cell] != cell:
            root[cell] = root[root[cell]]
            cell = root[cell]
        return cell

    def _join_leaf(self, cell: int) -> None:
        root, size = self.leaf_root, self.leaf_size
        root[cell], size[cell] = cell, 1
        mine = cell
        for d in NEIGHBOURS:
            n = cell + d
            if n in root:
                other = self._find(n)
                if other != mine:
                    if size[other] > size[mine]:
                        mine, other = other, mine
                    root[other] = mine
                    size[mine] += size.pop(other)
        if size[mine] > self.leaf_best:
            self.leaf_best = size[mine]

    # --- what the rules ask -----------------------------------------------------------
    def legal_cells(self, tile: int) -> list[int]:
        """tree.legal_cells, from the kept frontiers."""
        if tile in (WOOD, LEAF):
            return sorted(self.wood_adj)
        if tile == FLOWER:
            return sorted(self.leaf_adj)
        if self.leaf_best < 2:  # a fruit needs two leaves side by side: one group of 2+
            return []
        tree = self.tree
        return sorted([c for c in self.leaf_adj if fruit_fits(tree, c)])

    def can_grow_wood(self) -> bool:
        """``not tree.is_stuck``."""
        return bool(self.wood_adj)

    def measure(self, test: str) -> int:
        """The goal measures of scoring.goals_met (bonsai.md §6.5)."""
        if test == "wood":
            return self.counts[WOOD]
        if test == "leafGroup":
            return self.leaf_best
        if test == "fruit":
            return self.counts[FRUIT]
        return max(self.flowers)

    def kengai(self) -> dict[str, bool]:
        """tree.kengai_levels."""
        flags = self.levels()[len(MEASURES) :]
        return {level: bool(flag) for level, flag in zip(KENGAI_LEVELS, flags, strict=True)}

    def levels(self) -> tuple[int, ...]:
        """Every goal measure at once: the values of :data:`MEASURES` (as measure()),
        then the kengai flags of :data:`KENGAI_LEVELS` (as kengai())."""
        if self.levels_at == self.size:
            return self.levels_seen
        counts, past = self.counts, self.past
        right, left = past[RIGHT + UP] or past[RIGHT + BELOW], past[LEFT + UP] or past[LEFT + BELOW]
        high = (past[RIGHT + UP] and past[LEFT + BELOW]) or (
            past[LEFT + UP] and past[RIGHT + BELOW]
        )
        self.levels_at = self.size
        self.levels_seen = (
            counts[WOOD],
            self.leaf_best,
            counts[FRUIT],
            max(self.flowers),
            right,
            right and left,
            high,
        )
        return self.levels_seen


def growth_of(tree: Tree, pot: frozenset[int], flipped: bool) -> Growth:
    """A Growth built from scratch, tiles added in key order (the result is the same in
    any order: every measure is a count, a set or a flag)."""
    g = Growth(tree, pot, flipped)
    for cell in sorted(tree):
        g.add(cell, tree[cell])
    # add() only ever adds to the frontiers; a cell filled later is still listed if it
    # was seen empty first, so drop the filled ones.
    g.wood_adj.difference_update(tree)
    g.leaf_adj.difference_update(tree)
    return g
