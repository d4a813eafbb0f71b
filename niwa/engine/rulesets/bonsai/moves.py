"""The legal actions of each decision, and the rule each refused move breaks.

Actions (docs/games/bonsai.md): ``meditate`` (slot, and a tile for slot 2), ``cultivate``,
``place`` (tile, cell ``[u, v]``), ``end_placing``, ``choose_tile``, ``claim`` /
``renounce`` (goal), ``discard`` (tile), ``remove`` (cell) and ``flip_pot``. A placement
is checked against the rules directly, without listing every cell of every tile first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from niwa.engine.api import IllegalAction
from niwa.engine.rulesets.bonsai.actions import (
    Bare,
    BonsaiAction,
    Goal,
    Meditate,
    Place,
    Reveal,
    Tile,
)
from niwa.engine.rulesets.bonsai.rules import (
    ANY,
    GOAL_ORDER,
    KIND_ORDER,
    LEAF,
    SLOTS,
    TILE_CODE,
    TILES,
    coords,
    key,
)
from niwa.engine.rulesets.bonsai.seat import Seat
from niwa.engine.rulesets.bonsai.tree import can_place, removable

if TYPE_CHECKING:
    from niwa.engine.rulesets.bonsai.state import BonsaiState

#: The rule a refused move breaks, per phase (bonsai.md §7.1 unless named here).
PHASE_RULES = {"master": "§2.3", "claim": "§4.3"}
#: Cells farther out than this never hold a tile (rules.key's range is wider).
MAX_COORD = 500

# Actions are built once and shared by every state (as in sakura): building dicts was
# most of the cost of a listing. An action handed out, listed or sampled, must not be
# mutated.
CULTIVATE: Final[Bare] = {"type": "cultivate"}
END_PLACING: Final[Bare] = {"type": "end_placing"}
FLIP_POT: Final[Bare] = {"type": "flip_pot"}
#: The meditate actions of each slot (slot 2 has one per tile choice).
MEDITATE: Final[tuple[tuple[Meditate, ...], ...]] = tuple(
    tuple({"type": "meditate", "slot": i + 1, "tile": TILES[t]} for t in slot.choice)
    if slot.choice
    else ({"type": "meditate", "slot": i + 1},)
    for i, slot in enumerate(SLOTS)
)
MEDITATE_ALL: Final[tuple[Meditate, ...]] = tuple(a for slot in MEDITATE for a in slot)
#: The choice of a turn with a full row and a tree that can grow: meditate or cultivate.
CHOOSE_USUAL: Final[tuple[BonsaiAction, ...]] = (*MEDITATE_ALL, CULTIVATE)
CHOOSE_TILE: Final[tuple[Tile, ...]] = tuple({"type": "choose_tile", "tile": t} for t in TILES)
DISCARD: Final[tuple[Tile, ...]] = tuple({"type": "discard", "tile": t} for t in TILES)
#: Claim, then renounce, per goal.
GOAL_DECISIONS: Final[dict[str, tuple[Goal, Goal]]] = {
    g: ({"type": "claim", "goal": g}, {"type": "renounce", "goal": g}) for g in GOAL_ORDER
}
#: The chance outcome revealing each card kind.
REVEAL: Final[dict[str, Reveal]] = {k: {"type": "reveal", "card": k} for k in KIND_ORDER}
#: id() of every placement in PLACE -> (tile code, cell key): a listed placement is
#: known without reading it again (the actions live as long as the module, so ids
#: are never reused).
PLACED: Final[dict[int, tuple[int, int]]] = {}


class _Placements(dict[int, Place]):
    """One tile's placement actions by cell key, each built the first time it is listed."""

    def __init__(self, tile: int) -> None:
        super().__init__()
        self.tile = tile

    def __missing__(self, cell: int) -> Place:
        t = self.tile
        u, v = coords(cell)
        # setdefault: of two threads building the same action, one object is kept and
        # known by id (a dropped one's id could be reused by another object)
        placed: Place = {"type": "place", "tile": TILES[t], "cell": [u, v]}
        action = self.setdefault(cell, placed)
        PLACED[id(action)] = (t, cell)
        return action


#: The placement actions per tile code (cells only ever near a bonsai, so few).
PLACE: Final[tuple[_Placements, ...]] = tuple(_Placements(t) for t in range(4))


def rule(section: str) -> str:
    return f"bonsai.md {section}"


def phase_rule(phase: str) -> str:
    return rule(PHASE_RULES.get(phase, "§7.1"))


def choose_actions(s: BonsaiState, me: Seat) -> list[BonsaiAction]:
    """Shed a tile of a stuck tree (§7.1), flip a bare pot, meditate or cultivate."""
    board = s.board
    can_grow = me.growth().can_grow_wood()
    if can_grow and None not in board and not s.options["allowPotFlip"]:
        return list(CHOOSE_USUAL)  # the common case: a full row, a growing tree
    acts: list[BonsaiAction] = []
    if not can_grow:
        acts += [{"type": "remove", "cell": list(coords(c))} for c in removable(me.tree)]
    if s.options["allowPotFlip"] and not me.flipped and len(me.tree) == 1:
        acts.append(FLIP_POT)
    if None not in board:
        acts += MEDITATE_ALL
    else:
        for i, card in enumerate(board):
            if card is not None:
                acts += MEDITATE[i]
    acts.append(CULTIVATE)
    return acts


def placing_actions(s: BonsaiState, me: Seat) -> list[BonsaiAction]:
    """Every placement the supply and the allowance permit, then ``end_placing``."""
    acts: list[BonsaiAction] = []
    growth, supply, allowance = me.growth(), me.supply, s.allowance
    wood_cells: list[int] | None = None  # wood and leaf grow on the same cells
    for t in range(4):
        if supply[t] and (allowance[t] or allowance[ANY]):
            if t <= LEAF:
                wood_cells = cells = wood_cells or growth.legal_cells(t)
            else:
                cells = growth.legal_cells(t)
            acts += map(PLACE[t].__getitem__, cells)
    acts.append(END_PLACING)
    return acts


def placement(s: BonsaiState, me: Seat, action: dict[str, Any]) -> tuple[int, int]:
    """The tile code and cell key of a legal placement, else IllegalAction (§6.6)."""
    known = PLACED.get(id(action))  # a listed placement: well formed, its cell near
    t, k, far = _read_placement(action) if known is None else (*known, False)
    if not me.supply[t]:
        raise IllegalAction(rule("§7.1"), f"there is no {TILES[t]} tile in your supply")
    if not (s.allowance[t] or s.allowance[ANY]):
        raise IllegalAction(rule("§2.4"), f"no placement left for a {TILES[t]} tile")
    if far or not can_place(me.tree, me.pot, t, k):
        cell = list(action["cell"])
        raise IllegalAction(rule("§6.6"), f"a {TILES[t]} tile may not go on {cell}")
    return t, k


def _read_placement(action: dict[str, Any]) -> tuple[int, int, bool]:
    """Tile code, cell key and whether the cell is out of reach, of a placement sent
    in any shape; IllegalAction if it is not {type, tile, cell [u, v]}."""
    refused = rule("§6.6")
    tile = action.get("tile")
    if set(action) != {"type", "tile", "cell"} or tile not in TILES:
        raise IllegalAction(refused, f"a placement is {{type, tile, cell}}, not {action!r}")
    cell = action["cell"]
    if (
        not isinstance(cell, list | tuple)
        or len(cell) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
    ):
        raise IllegalAction(refused, f"a cell is [u, v], not {cell!r}")
    u, v = cell
    return TILE_CODE[tile], key(u, v), abs(u) >= MAX_COORD or abs(v) >= MAX_COORD
