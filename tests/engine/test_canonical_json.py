"""engine.canonical_json: the one spelling of JSON (sorted keys, no spaces, text as
is), whatever encoder it uses underneath."""

from __future__ import annotations

import json
from typing import Any

import pytest

from niwa import engine
from niwa.engine.api import _SHARED, canonical_json, share_json

VALUES: list[Any] = [
    {"type": "draw", "card": 12},
    {"b": [1, 2.5, -0.0, 1e300, None, True], "a": {"z": "é\u2028\"\\\n\x00"}},
    {1: "int keys become text", 2: None},
    "a string on its own",
    [float("nan"), float("inf")],
    10**30,
    [],
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_spelling_is_json_dumps_with_sorted_keys_and_compact_separators(value: Any) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == expected


def test_a_circular_value_is_refused_and_the_next_one_is_still_spelled() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        canonical_json(loop)
    assert canonical_json([loop[:0], {"a": 1}]) == '[[],{"a":1}]'


def test_a_value_that_is_not_json_is_refused_and_the_next_one_is_still_spelled() -> None:
    shared = {"a": 1}
    with pytest.raises(TypeError, match="not JSON serializable"):
        canonical_json([shared, {"b": shared, "c": {1, 2}}])
    assert canonical_json([shared, shared]) == '[{"a":1},{"a":1}]'


def test_a_shared_value_keeps_the_spelling_it_was_shared_with() -> None:
    action = {"type": "shared-in-a-test", "card": 7}
    share_json([action])
    assert canonical_json(action) == '{"card":7,"type":"shared-in-a-test"}'
    assert canonical_json(dict(action, card=8)) == '{"card":8,"type":"shared-in-a-test"}'


def test_every_value_sakura_shares_is_spelled_as_json_dumps_would() -> None:
    engine.load("sakura")
    for value, text in list(_SHARED.values()):
        assert text == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                  ensure_ascii=False)
