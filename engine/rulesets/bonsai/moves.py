"""The legal actions of each decision, and the rule each refused move breaks.

Actions (docs/games/bonsai.md): ``meditate`` (slot, and a tile for slot 2), ``cultivate``,
``place`` (tile, cell ``[u, v]``), ``end_placing``, ``choose_tile``, ``claim`` /
``renounce`` (goal), ``discard`` (tile), ``remove`` (cell) and ``flip_pot``. A placement
is checked against the rules directly, without listing every cell of every tile first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.api import Action, IllegalAction
from engine.rulesets.bonsai.rules import ANY, OFFSET, SLOTS, SPAN, TILE_CODE, TILES, coords, key
from engine.rulesets.bonsai.seat import Seat
from engine.rulesets.bonsai.tree import can_place, removable

if TYPE_CHECKING:
    from engine.rulesets.bonsai.state import BonsaiState

#: The rule a refused move breaks, per phase (bonsai.md §7.1 unless named here).
PHASE_RULES = {"master": "§2.3", "claim": "§4.3"}
#: Cells farther out than this never hold a tile (rules.key's range is wider).
MAX_COORD = 500


def rule(section: str) -> str:
    return f"bonsai.md {section}"


def phase_rule(phase: str) -> str:
    return rule(PHASE_RULES.get(phase, "§7.1"))


def choose_actions(s: BonsaiState, me: Seat) -> list[Action]:
    """Shed a tile of a stuck tree (§7.1), flip a bare pot, meditate or cultivate."""
    acts: list[Action] = []
    if not me.growth().can_grow_wood():
        acts += [{"type": "remove", "cell": list(coords(c))} for c in removable(me.tree)]
    if s.options["allowPotFlip"] and not me.flipped and len(me.tree) == 1:
        acts.append({"type": "flip_pot"})
    for i, card in enumerate(s.board):
        if card is None:
            continue
        if SLOTS[i].choice:
            acts += [{"type": "meditate", "slot": i + 1, "tile": TILES[t]} for t in SLOTS[i].choice]
        else:
            acts.append({"type": "meditate", "slot": i + 1})
    acts.append({"type": "cultivate"})
    return acts


def placing_actions(s: BonsaiState, me: Seat) -> list[Action]:
    """Every placement the supply and the allowance permit, then ``end_placing``."""
    acts: list[Action] = []
    growth, supply, allowance = me.growth(), me.supply, s.allowance
    for t in range(4):
        if supply[t] and (allowance[t] or allowance[ANY]):
            name = TILES[t]
            # coords() inlined: this lists every cell of every tile each placement
            acts += [
                {"type": "place", "tile": name, "cell": [c % SPAN - OFFSET, c // SPAN - OFFSET]}
                for c in growth.legal_cells(t)
            ]
    acts.append({"type": "end_placing"})
    return acts


def placement(s: BonsaiState, me: Seat, action: dict[str, Any]) -> tuple[int, int]:
    """The tile code and cell key of a legal placement, else IllegalAction (§6.6)."""
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
    t = TILE_CODE[tile]
    if not me.supply[t]:
        raise IllegalAction(rule("§7.1"), f"there is no {TILES[t]} tile in your supply")
    if not (s.allowance[t] or s.allowance[ANY]):
        raise IllegalAction(rule("§2.4"), f"no placement left for a {TILES[t]} tile")
    k = key(cell[0], cell[1])
    far = abs(cell[0]) >= MAX_COORD or abs(cell[1]) >= MAX_COORD
    if far or not can_place(me.tree, me.pot, t, k):
        raise IllegalAction(refused, f"a {TILES[t]} tile may not go on {list(cell)}")
    return t, k
