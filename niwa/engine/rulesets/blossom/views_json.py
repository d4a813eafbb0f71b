"""A seat's observation as wire text: ``canonical_json(views.observation(state, seat))``
spelled without building the observation.

A bot process is sent only this text, once per decision. Most of a Blossom observation
is six-kind counts (the garden, each seat's face-up yard and known cards, the viewer's
hand, face-down yard and returns): here they are written from one template, keys in
canonical order, as are the whole numbers and flags around them; lists and the cherry
record go through the canonical encoder. The conformance check
``observe_json_is_canonical`` holds the text equal to the canonical JSON of
:func:`views.observation` at every step of whole games.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Final

from niwa.engine.api import canonical_json
from niwa.engine.rulesets.blossom.actions import Phase
from niwa.engine.rulesets.blossom.rules import KINDS, VERSION

if TYPE_CHECKING:
    from niwa.engine.rulesets.blossom.state import BlossomState

_PLAY: Final = Phase.PLAY  # a global, not an enum class lookup, on every observation
_SORTED = sorted(range(len(KINDS)), key=KINDS.__getitem__)
_IN_ORDER = itemgetter(*_SORTED)
#: ``{kind: count}`` for every kind, keys sorted: filled with the counts in that order.
_text = json.encoder.encode_basestring  # canonical_json keeps non-ASCII as it is
_GAME = _text(VERSION)
_COUNTS = "{{" + ",".join(f'"{KINDS[i]}":{{}}' for i in _SORTED) + "}}"


#: Counts already written, by value: a game sees the same few again and again.
_WRITTEN: dict[tuple[int, ...], str] = {}
_WRITTEN_MAX = 50_000


def _counts(counts: Sequence[int]) -> str:
    key = tuple(counts)
    text = _WRITTEN.get(key)
    if text is None:
        if len(_WRITTEN) >= _WRITTEN_MAX:
            _WRITTEN.clear()
        text = _WRITTEN[key] = _COUNTS.format(*_IN_ORDER(counts))
    return text


def _maybe(value: int | None) -> str:
    return "null" if value is None else str(value)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def observation_json(s: BlossomState, seat: int | None) -> str:
    seats = ",".join([
        f'{{"hand":{sum(s.hands[i])},"known":{_counts(s.known[i])},'
        f'"returned":{sum(s.returned[i])},"yard_down":{sum(s.downs[i])},'
        f'"yard_up":{_counts(s.ups[i])}}}'
        for i in range(s.n)
    ])
    arranged = "null" if s.first_arranged is None else f'"{KINDS[s.first_arranged]}"'
    cherry = "null" if s.cherry is None else canonical_json(s.cherry)
    head = (
        f'"actions_done":{s.actions_done},"cherry":{cherry},'
        f'"current":{_maybe(s.current if s.phase == _PLAY else None)},'
        f'"dealer":{_maybe(s.dealer)},"deck":{sum(s.deck)},'
        f'"end_triggered":{_flag(s.end_triggered)},"first_arranged":{arranged},'
        f'"game":{_GAME},"garden":{_counts(s.garden)},"garden_drawn":{_flag(s.garden_drawn)}'
    )
    options = canonical_json({"mulligan": s.mulligan, "cherryOverflowSource": s.overflow_source})
    middle = (
        f'"mulligan_next":{_maybe(s.mulligan_next)},"options":{options},'
        f'"pending_deals":{canonical_json(s.queue)},"phase":{_text(s.phase)},'
        f'"players":{s.n},"removed":{sum(s.removed)}'
    )
    tail = (
        f'"scores":{canonical_json(s.scores)},"seat":{_maybe(seat)},"seats":[{seats}],'
        f'"to_move":[{",".join(map(str, s.to_move()))}],"turn":{s.turns}'
    )
    if seat is None:
        return f"{{{head},{middle},{tail}}}"
    return (
        f'{{{head},"hand":{_counts(s.hands[seat])},{middle},'
        f'"returned":{_counts(s.returned[seat])},{tail},"yard_down":{_counts(s.downs[seat])}}}'
    )
