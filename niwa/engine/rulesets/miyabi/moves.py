"""Actions as JSON, and their validation with the rule each refusal breaks.

Actions (docs/games/miyabi.md): ``{"type": "deal", "shape", "object"}`` (chance),
``{"type": "take", "shape", "object"}``, ``{"type": "pass"}`` and
``{"type": "place", "row", "col", "rotation"}`` with 1-based row and column of the
tile's object cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from niwa.engine.api import Action, IllegalAction
from niwa.engine.rulesets.miyabi.garden import Placement
from niwa.engine.rulesets.miyabi.rules import (
    KIND_BY_NAMES,
    KIND_NAMES,
    KIND_SHAPE,
    KIND_TYPE,
    SHAPES,
    SIZE,
    TYPES,
    kind_of,
    shape_of,
    type_of,
)

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.state import MiyabiState

# The listed actions, built once and shared by every listing (as Sakura's plays are):
# listing a decision then builds no dicts. Nobody may change one in place.
#: Per kind: taking a tile of it from the middle (miyabi.md §5.2).
TAKE: Final = tuple({"type": "take", "shape": s, "object": o} for s, o in KIND_NAMES)
#: Per kind: the chance outcome that lays a tile of it out (miyabi.md §2.2).
DEAL: Final = tuple({"type": "deal", "shape": s, "object": o} for s, o in KIND_NAMES)
#: DEAL's actions by identity (they live as long as the module): kind.
DEAL_KIND: Final = {id(action): kind for kind, action in enumerate(DEAL)}
PASS: Final = {"type": "pass"}
#: PLACE[row][col][rotation], 0-based row and column: placing the taken tile's object
#: cell there (the action spells them 1-based).
PLACE: Final = tuple(
    tuple(
        tuple({"type": "place", "row": r + 1, "col": c + 1, "rotation": k} for k in range(4))
        for c in range(SIZE)
    )
    for r in range(len(TYPES))
)
#: PLACE's actions by identity (they live as long as the module): (row, col, rotation).
PLACE_AT: Final = {
    id(action): (r, c, k)
    for r, by_col in enumerate(PLACE)
    for c, by_rotation in enumerate(by_col)
    for k, action in enumerate(by_rotation)
}


def chosen_kind(action: Action) -> int:
    """The tile kind a legal choice takes from the middle, or -1 for a pass."""
    if action["type"] == "pass":
        return -1
    return KIND_BY_NAMES[action["shape"], action["object"]]


def shared_placement(state: MiyabiState, action: Action) -> Placement | None:
    """The placement ``action`` makes if it is one of :data:`PLACE`'s own actions (as
    listed) and legal now, else None: one spot tested, not the listing searched."""
    at = PLACE_AT.get(id(action))
    if at is None or at[0] != KIND_TYPE[state.chosen]:
        return None
    garden = state.gardens[state.current]
    return garden.placement_at(state.rules, state.chosen, at[1], at[2])


def listed_placement(state: MiyabiState, action: Action) -> Placement:
    """The placement a listed (so legal) place action makes: looked up, not checked."""
    kind, col = state.chosen, action["col"] - 1
    orientation = state.rules.rotations[KIND_SHAPE[kind]][action["rotation"]]
    cells = orientation.footprints[KIND_TYPE[kind] * SIZE + col]
    assert cells is not None  # listed, so inside the grid
    return Placement(col, orientation, cells, state.gardens[state.current].heights[cells[0]] + 1)


def _fields(action: Action, rule: str, kind: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """The action as a dict of exactly ``type`` plus ``keys``, else IllegalAction."""
    if not isinstance(action, dict) or action.get("type") != kind or set(action) != {"type", *keys}:
        spelled = ", ".join(f'"{k}"' for k in keys)
        raise IllegalAction(rule, f"expected a {kind!r} action with {spelled}, got {action!r}")
    return action


def _kind(action: dict[str, Any], rule: str) -> int:
    shape, obj = action.get("shape"), action.get("object")
    if shape not in SHAPES or obj not in TYPES:
        raise IllegalAction(
            rule,
            f"no {shape!r} {obj!r} tile: shapes are {', '.join(SHAPES)};"
            f" objects are {', '.join(TYPES)}",
        )
    return kind_of(SHAPES.index(shape), TYPES.index(obj))


def parse_deal(state: MiyabiState, action: Action) -> int:
    """A chance outcome: the next tile of the shape being laid out (miyabi.md §2.2)."""
    kind = DEAL_KIND.get(id(action), -1)
    if kind >= 0 and KIND_SHAPE[kind] == state.dealing_shape() and state.supply[kind]:
        return kind  # one of DEAL's own actions, as sample_chance hands them out
    if type(action) is dict and len(action) == 3 and action.get("type") == "deal":
        # the common case, a listed outcome, looked up without building sets
        shape, obj = action.get("shape"), action.get("object")
        if type(shape) is str and type(obj) is str:
            kind = KIND_BY_NAMES.get((shape, obj), -1)
            if kind >= 0 and KIND_SHAPE[kind] == state.dealing_shape() and state.supply[kind]:
                return kind
    rule = "miyabi.md §2.2"
    kind = _kind(_fields(action, rule, "deal", ("shape", "object")), rule)
    if shape_of(kind) != state.dealing_shape() or not state.supply[kind]:
        raise IllegalAction(rule, f"{action!r} is not a possible draw now")
    return kind


def parse_choice(state: MiyabiState, seat: int, action: Action) -> int:
    """The tile kind taken from the middle, or -1 for a pass (miyabi.md §5.2)."""
    if isinstance(action, dict) and action.get("type") == "pass":
        _fields(action, "miyabi.md §5.2", "pass", ())
        if not state.rules.voluntary_pass and state.takeable(seat):
            raise IllegalAction(
                "miyabi.md §5.2",
                "a tile still fits your garden; pass only when none does (voluntaryPass is off)",
            )
        return -1
    rule = "miyabi.md §5.2"
    kind = _kind(_fields(action, rule, "take", ("shape", "object")), rule)
    shape, obj = SHAPES[shape_of(kind)], TYPES[type_of(kind)]
    if not state.display[kind]:
        raise IllegalAction(rule, f"there is no {shape} {obj} tile in the middle")
    if not state.gardens[seat].can_place(state.rules, kind):
        raise IllegalAction(
            "miyabi.md §5.3", f"a {shape} {obj} tile fits nowhere in your garden; take another"
        )
    return kind


def _int(action: dict[str, Any], key: str, rule: str) -> int:
    value = action[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction(rule, f"{key!r} must be a whole number, not {value!r}")
    return value


def parse_placement(state: MiyabiState, seat: int, action: Action) -> Placement:
    """Where the taken tile goes; each refusal names its rule (miyabi.md §5.3)."""
    fields = _fields(action, "miyabi.md §5.2", "place", ("row", "col", "rotation"))
    row = _int(fields, "row", "miyabi.md §5.3 P1") - 1
    col = _int(fields, "col", "miyabi.md §5.3 P4") - 1
    rotation = _int(fields, "rotation", "miyabi.md §3.1")
    kind, rules, garden = state.chosen, state.rules, state.gardens[seat]
    obj = type_of(kind)
    if row != obj:
        raise IllegalAction(
            "miyabi.md §5.3 P1",
            f"{TYPES[obj]} objects go in row {obj + 1}, not row {row + 1}",
        )
    if not 0 <= col < SIZE:
        raise IllegalAction("miyabi.md §5.3 P4", f"columns run from 1 to {SIZE}, not {col + 1}")
    if garden.lanterns[col]:
        raise IllegalAction(
            "miyabi.md §5.3 P2", f"column {col + 1}'s lantern field is already filled this round"
        )
    orientation = next((o for o in rules.shapes[shape_of(kind)] if o.rotation == rotation), None)
    if orientation is None:
        allowed = ", ".join(str(o.rotation) for o in rules.shapes[shape_of(kind)])
        raise IllegalAction("miyabi.md §3.1", f"rotation {rotation} is not offered; use {allowed}")
    cells = orientation.footprints[row * SIZE + col]
    if cells is None:
        raise IllegalAction("miyabi.md §5.3 P4", "the tile would stick out of the 6 x 6 grid")
    heights = sorted({garden.heights[c] for c in cells})
    if len(heights) > 1:
        raise IllegalAction(
            "miyabi.md §5.3 P6",
            f"the cells beneath are at heights {heights}; a tile must rest flat on one level",
        )
    layer = heights[0] + 1
    if rules.max_layer and layer > rules.max_layer:
        raise IllegalAction(
            "miyabi.md §5.3 P11", f"layer {layer} is above maxLayer {rules.max_layer}"
        )
    return Placement(col, orientation, cells, layer)
