"""A player's bonsai: placement rules, the stuck-tree rule and the goal predicates.

A tree is a ``dict[int, int]`` from cell key (rules.key) to tile code; the bud is the
wood tile at (0, 0). ``pot`` is the set of pot cells of that player's pot (mirrored when
the pot is flipped, bonsai.md §6.7).
"""

from __future__ import annotations

from niwa.engine.rulesets.bonsai.rules import (
    BELOW_FROM,
    BUD,
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

Tree = dict[int, int]


def new_tree() -> Tree:
    return {BUD: WOOD}


#: The six neighbour offsets by name, in NEIGHBOURS' cyclic order.
_E, _NE, _NW, _W, _SW, _SE = NEIGHBOURS


def fruit_fits(tree: Tree, cell: int) -> bool:
    """bonsai.md §6.6: two leaves on consecutive sides, and no fruit neighbour."""
    # unrolled (no list, no loop): placement listings ask this for every cell by a leaf
    get = tree.get
    e, ne, nw, w = get(cell + _E), get(cell + _NE), get(cell + _NW), get(cell + _W)
    sw, se = get(cell + _SW), get(cell + _SE)
    if FRUIT in (e, ne, nw, w, sw, se):
        return False
    # the consecutive pairs, cyclic: e-ne, ne-nw, nw-w, w-sw, sw-se, se-e
    return (
        (ne == LEAF and (e == LEAF or nw == LEAF))
        or (sw == LEAF and (w == LEAF or se == LEAF))
        or (nw == LEAF and w == LEAF)
        or (se == LEAF and e == LEAF)
    )


def can_place(tree: Tree, pot: frozenset[int], tile: int, cell: int) -> bool:
    """Whether ``tile`` may go on ``cell`` now (bonsai.md §6.6)."""
    if cell in tree or cell in pot:
        return False
    if tile == FRUIT:
        return fruit_fits(tree, cell)
    needed = LEAF if tile == FLOWER else WOOD  # wood and leaf grow from wood
    get = tree.get  # the six sides unrolled, not any(generator): every placement asks this
    return needed in (
        get(cell + _E),
        get(cell + _NE),
        get(cell + _NW),
        get(cell + _W),
        get(cell + _SW),
        get(cell + _SE),
    )


def legal_cells(tree: Tree, pot: frozenset[int], tile: int) -> list[int]:
    """Every cell where ``tile`` may go, in key order (row by row, bottom up)."""
    source = WOOD if tile in (WOOD, LEAF) else LEAF
    cells: set[int] = set()
    for cell, t in tree.items():
        if t == source:
            for d in NEIGHBOURS:
                n = cell + d
                if n not in tree and n not in pot:
                    cells.add(n)
    if tile == FRUIT:
        return sorted(c for c in cells if fruit_fits(tree, c))
    return sorted(cells)


def is_stuck(tree: Tree, pot: frozenset[int]) -> bool:
    """No wood can be placed anywhere (the can't-grow rule, bonsai.md §7.1)."""
    for cell, t in tree.items():
        if t == WOOD:
            for d in NEIGHBOURS:
                n = cell + d
                if n not in tree and n not in pot:
                    return False
    return True


def removable(tree: Tree) -> list[int]:
    """Tiles whose removal alone lets wood grow again: non-wood tiles touching wood.

    Removing one of them frees a non-pot cell next to wood, so one tile is always the
    fewest needed (bonsai.md §7.1); wood is never removed."""
    cells = {
        cell + d
        for cell, t in tree.items()
        if t == WOOD
        for d in NEIGHBOURS
        if tree.get(cell + d, WOOD) != WOOD
    }
    return sorted(cells)


# --- goal predicates (bonsai.md §6.4, §6.5) -------------------------------------------
def _uv(tree: Tree, flipped: bool) -> list[tuple[int, int, int]]:
    """(u, v, tile) seen in the unflipped frame: a flipped pot mirrors u (§6.7)."""
    sign = -1 if flipped else 1
    # coords() inlined: this runs on every goal check
    return [(sign * (k % SPAN - OFFSET), k // SPAN - OFFSET, t) for k, t in tree.items()]


def count(tree: Tree, tile: int) -> int:
    return sum(1 for t in tree.values() if t == tile)


def largest_leaf_group(tree: Tree) -> int:
    """Size of the largest group of leaves joined side to side (Moyogi, §6.5)."""
    seen: set[int] = set()
    best = 0
    for start, t in tree.items():
        if t != LEAF or start in seen:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            cell = stack.pop()
            size += 1
            for d in NEIGHBOURS:
                n = cell + d
                if n not in seen and tree.get(n) == LEAF:
                    seen.add(n)
                    stack.append(n)
        best = max(best, size)
    return best


def flowers_one_side(tree: Tree, flipped: bool) -> int:
    """Shakan: most flowers protruding past one and the same side line."""
    cells = [(u, v) for u, v, t in _uv(tree, flipped) if t == FLOWER]
    return max(
        sum(1 for u, _ in cells if u >= RIGHT_FROM), sum(1 for u, _ in cells if u <= LEFT_FROM)
    )


def kengai_levels(tree: Tree, flipped: bool) -> dict[str, bool]:
    """Kengai low/mid/high by the BGA reading (bonsai.md §6.5, DECIDED), in one pass."""
    right = left = right_up = left_up = right_below = left_below = False
    for u, v, _ in _uv(tree, flipped):
        if u >= RIGHT_FROM:  # past the right line: the gold-crack side
            right = True
            if v > BELOW_FROM:
                right_up = True
            else:
                right_below = True
        elif u <= LEFT_FROM:
            left = True
            if v > BELOW_FROM:
                left_up = True
            else:
                left_below = True
    return {
        "low": right,
        "mid": right and left,
        # One tile past a side line above the bottom line, another below the pot past
        # the other side line; a tile under the pot between the lines counts for neither.
        "high": (right_up and left_below) or (left_up and right_below),
    }


def free_sides(tree: Tree, cell: int) -> int:
    """Sides of a tile touching no other bonsai tile; pot sides are free (bonsai.md §5)."""
    return sum(1 for d in NEIGHBOURS if cell + d not in tree)
