"""niwa.engine.actions: a move is legal only if its canonical JSON is that of a listed one."""

from __future__ import annotations

import json

import pytest

from niwa.engine.actions import LegalActions, same_json
from niwa.engine.api import Action, IllegalAction, canonical_json

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
    assert LegalActions(LEGAL).match({"type": {1, 2}}) is None
    assert LegalActions([[1, 2]]).match((1, 2)) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [(1, 1.0), (1, True), ({"a": [1, {"b": 0}]}, {"a": [1, {"b": 0.0}]}), ("x", "x"), (None, None)],
)
def test_same_json_agrees_with_canonical_json_for_equal_values(a: object, b: object) -> None:
    assert a == b
    assert same_json(a, b) == (canonical_json(a) == canonical_json(b))


def test_the_error_carries_the_games_rule_and_reason() -> None:
    with pytest.raises(IllegalAction, match=r"'nope' is not legal now \[blossom.md §5\]"):
        LegalActions(LEGAL).parse("nope", _explain)


def test_listing_is_a_copy_that_callers_may_reorder() -> None:
    legal = LegalActions(LEGAL)
    mine = legal.listing()
    mine.reverse()
    assert legal.listing() == LEGAL
    assert len(legal) == 2


def test_of_two_listed_actions_equal_in_python_the_exact_json_one_matches() -> None:
    legal = LegalActions([{"n": 1}, {"n": 1.0}])
    assert canonical_json(legal.match({"n": 1.0})) == '{"n":1.0}'
    assert canonical_json(legal.match({"n": 1})) == '{"n":1}'


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [1.5, 2, None, True, False]},
        {"z": {"y": [{"x": 10**30}]}, "é": "\u2028 \ud800 \"quoted\"\n"},
        "a bare string", 7, -0.0, 1e300, 1e-7, float("nan"), float("-inf"), None, [], {},
    ],
)
def test_canonical_json_spells_values_as_json_dumps_with_its_options(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == expected


def test_canonical_json_refuses_what_json_dumps_refuses() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        canonical_json({"a": {1, 2}})
    assert canonical_json({"a": [1]}) == '{"a":[1]}'  # nothing left behind by the error
