"""A seat's observation as wire text: ``canonical_json(views.observe(state, seat))``
written the way :func:`codec.to_text` writes a snapshot.

A bot process is sent only this text, once per decision, and most of a Miyabi
observation is the placed tiles and the views derived from them: the view is encoded
with holes for the options, each garden's tiles and its derived fields, and the holes
are filled with text kept until a tile lands in that garden, so nothing a move left
alone is encoded again. The conformance check ``observe_json_is_canonical``
holds the text equal to the canonical JSON of the observation at every step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from niwa.engine.api import envelope
from niwa.engine.rulesets.miyabi import codec, views
from niwa.engine.rulesets.miyabi.garden import Garden
from niwa.engine.rulesets.miyabi.rules import VERSION
from niwa.engine.rulesets.miyabi.shared_json import encode, fill, hole
from niwa.engine.rulesets.miyabi.views import DERIVED_GARDEN

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.state import MiyabiState


#: The derived fields' text per kept view (views._derived: the same object until a
#: tile lands in its garden), beside the view so an id is never taken for another's;
#: emptied when it grows past _KEPT_MAX (finished games' views).
_DERIVED_TEXT: dict[int, tuple[object, list[str]]] = {}
_KEPT_MAX = 1024


def _derived_text(g: Garden) -> list[str]:
    kept = views._derived(g)
    found = _DERIVED_TEXT.get(id(kept))
    if found is None or found[0] is not kept:
        if len(_DERIVED_TEXT) >= _KEPT_MAX:
            _DERIVED_TEXT.clear()
        found = _DERIVED_TEXT[id(kept)] = (kept, [encode(kept[k]) for k in DERIVED_GARDEN])
    return found[1]


def observation_json(s: MiyabiState, seat: int | None) -> str:
    rules = s.rules
    pieces = [rules.options_json]
    gardens = []
    for g in s.gardens:
        holes = {"tiles": hole(len(pieces))}
        pieces.append(f"[{g.tiles_text(rules)}]")
        for key, text in zip(DERIVED_GARDEN, _derived_text(g), strict=True):
            holes[key] = hole(len(pieces))
            pieces.append(text)
        gardens.append(holes | g.fields())
    view = envelope(VERSION, seat, s.players, s.phase, s.to_move())
    view.update(codec._fields(s, hole(0), gardens))
    return fill(encode(view), pieces)
