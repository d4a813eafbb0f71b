"""A player's side of the table: bonsai, supply, cards, goal tiles."""

from __future__ import annotations

from typing import Final

from niwa.engine.rulesets.bonsai.growth import Growth, growth_of
from niwa.engine.rulesets.bonsai.rules import (
    BASE_CAPACITY,
    CARD_KINDS,
    POT,
    POT_FLIPPED,
    SEISHI_ALLOWANCE,
    TOOL_CAPACITY,
)
from niwa.engine.rulesets.bonsai.tree import Tree, new_tree

#: The Tool card kinds, whose copies capacity() counts with list.count.
TOOL_KINDS = tuple(k for k, card in CARD_KINDS.items() if card.type == "tool")


class Seat:
    """One player's table: bonsai, personal supply, cards and goal tiles.

    A seat has one bonsai, or two in the Emperor challenge (bonsai.md §8.1), where
    ``active`` marks the one that grows and scores goals; ``tree`` is that one."""

    __slots__ = (
        "active",
        "cards",
        "claimed",
        "claimed_on",
        "flips",
        "growths",
        "kept_features",
        "renounced",
        "supply",
        "tree_changes",
        "trees",
    )

    def __init__(
        self,
        trees: list[Tree],
        flips: list[bool],
        supply: list[int],
        cards: list[str],
        claimed: list[str],
        renounced: list[str],
        active: int = 0,
        claimed_on: list[int] | None = None,
    ) -> None:
        self.trees = trees
        self.flips = flips  # per bonsai: is its pot mirrored (bonsai.md §6.7)
        self.active = active
        self.supply = supply  # count per tile code
        self.cards = cards  # every card taken, in order (Growth/Tool face up, the rest in the pile)
        self.claimed = claimed
        self.claimed_on = claimed_on if claimed_on is not None else [0] * len(claimed)
        self.renounced = renounced
        # per bonsai: its Growth (growth.py), built on first use and kept up to date
        self.growths: list[Growth | None] = [None] * len(trees)
        # counts every change to a bonsai made through this class (tiles, pots, trees)
        self.tree_changes = 0
        # features.py's block of this seat (all but the supply) and the (tree_changes,
        # tiles, cards, goals) it is for: cards and goals are only ever added, so their
        # counts tell a change
        self.kept_features: tuple[tuple[int, ...], list[float]] | None = None

    def copy(self) -> Seat:
        trees = [dict(t) for t in self.trees]
        seat = Seat(
            trees,
            list(self.flips),
            list(self.supply),
            list(self.cards),
            list(self.claimed),
            list(self.renounced),
            self.active,
            list(self.claimed_on),
        )
        seat.growths = [
            None if g is None or not g.current(old) else g.copy(new)
            for g, old, new in zip(self.growths, self.trees, trees, strict=True)
        ]
        return seat

    def growth(self) -> Growth:
        """The active bonsai's Growth, rebuilt if the tree was replaced or changed
        behind its back (a removed tile, a flipped pot, a test setting cells)."""
        g = self.growths[self.active]
        tree = self.trees[self.active]
        if g is None or g.tree is not tree or g.size != len(tree):  # Growth.current inlined
            g = growth_of(tree, self.pot, self.flipped)
            self.growths[self.active] = g
        return g

    def place(self, cell: int, tile: int) -> None:
        """Put ``tile`` on ``cell`` of the active bonsai (already checked legal)."""
        growth = self.growth()
        self.trees[self.active][cell] = tile
        growth.add(cell, tile)
        self.tree_changes += 1

    def remove(self, cell: int) -> None:
        del self.trees[self.active][cell]
        self.growths[self.active] = None  # rare (§7.1): rebuilt on next use
        self.tree_changes += 1

    @property
    def tree(self) -> Tree:
        return self.trees[self.active]

    @tree.setter
    def tree(self, tree: Tree) -> None:
        self.trees[self.active] = tree
        self.growths[self.active] = None
        self.tree_changes += 1

    @property
    def flipped(self) -> bool:
        return self.flips[self.active]

    @flipped.setter
    def flipped(self, flipped: bool) -> None:
        self.flips[self.active] = flipped
        self.growths[self.active] = None
        self.tree_changes += 1

    @property
    def pot(self) -> frozenset[int]:
        return POT_FLIPPED if self.flips[self.active] else POT

    def capacity(self) -> int:
        """5 + 2 per Tool card (bonsai.md §2.3)."""
        return BASE_CAPACITY + TOOL_CAPACITY * sum(map(self.cards.count, TOOL_KINDS))

    def cultivate_allowance(self) -> list[int]:
        """Seishi slots plus one slot per Growth card (bonsai.md §2.4)."""
        allowance = list(SEISHI_ALLOWANCE)
        for c in self.cards:
            card = CARD_KINDS[c]
            if card.type == "growth" and card.tile is not None:
                allowance[card.tile] += 1
        return allowance


def new_seat(starting: tuple[int, ...], bonsai: int = 1) -> Seat:
    supply = [0, 0, 0, 0]
    for t in starting:
        supply[t] += 1
    trees = [new_tree() for _ in range(bonsai)]
    seat = Seat(trees, [False] * bonsai, supply, [], [], [])
    seat.growths = [_BUD_GROWTH.copy(tree) for tree in trees]  # cheaper than a rebuild
    return seat


#: The Growth of a bare bud in an unflipped pot, copied for every new bonsai.
_BUD_GROWTH: Final = growth_of(new_tree(), POT, False)
