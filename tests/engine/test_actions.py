"""engine.actions: a move is legal only if its canonical JSON is that of a listed one."""

from __future__ import annotations

import pytest

from engine.actions import LegalActions, action_key
from engine.api import Action, IllegalAction

LEGAL = [{"type": "arrange", "kind": "rose", "count": 1}, {"type": "draw", "from": "deck"}]


def _explain(action: Action) -> tuple[str, str]:
    return "blossom.md §5", f"{action!r} is not legal now"


def test_parse_returns_the_listed_action_for_an_equal_spelling_with_other_key_order() -> None:
    sent = {"count": 1, "kind": "rose", "type": "arrange"}
    assert LegalActions(LEGAL).parse(sent, _explain) is LEGAL[0]


@pytest.mark.parametrize("count", [1.0, True])
def test_a_float_or_bool_never_stands_for_an_int(count: object) -> None:
    sent = {"type": "arrange", "kind": "rose", "count": count}
    assert sent == LEGAL[0]  # Python's == would accept it: the helper must not
    with pytest.raises(IllegalAction) as caught:
        LegalActions(LEGAL).parse(sent, _explain)
    assert caught.value.rule == "blossom.md §5"


def test_an_extra_key_is_illegal() -> None:
    assert LegalActions(LEGAL).match({"type": "draw", "from": "deck", "x": 0}) is None


def test_a_value_that_is_not_json_is_illegal_not_a_crash() -> None:
    assert action_key({"type": {1, 2}}) is None
    assert LegalActions(LEGAL).match({"type": {1, 2}}) is None


def test_the_error_carries_the_games_rule_and_reason() -> None:
    with pytest.raises(IllegalAction, match=r"'nope' is not legal now \[blossom.md §5\]"):
        LegalActions(LEGAL).parse("nope", _explain)


def test_listing_is_a_copy_that_callers_may_reorder() -> None:
    legal = LegalActions(LEGAL)
    mine = legal.listing()
    mine.reverse()
    assert legal.listing() == LEGAL
    assert len(legal) == 2
