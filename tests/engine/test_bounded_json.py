"""The one decoder for JSON from outside: each bound, each refusal, one error type."""

from __future__ import annotations

import pytest

from niwa.engine.bounded_json import Bounds, UntrustedJsonError, decode, json_depth
from niwa.errors import EngineError

LOOSE = Bounds(max_chars=1000, max_depth=8)


def refusal(text: str, bounds: Bounds = LOOSE) -> UntrustedJsonError:
    with pytest.raises(UntrustedJsonError) as caught:
        decode(text, bounds)
    return caught.value


def test_text_within_every_bound_decodes_as_json_does() -> None:
    assert decode('{"a":[1,2.5,"x",null,true]}', LOOSE) == {"a": [1, 2.5, "x", None, True]}


def test_text_over_max_chars_is_refused_naming_the_length_and_the_bound() -> None:
    e = refusal("[" + "1," * 600 + "1]")
    assert (e.bound, e.found, e.limit) == ("chars", 1203, 1000)
    assert str(e) == "1203 characters (at most 1000)"


def test_no_max_chars_leaves_the_length_unbounded() -> None:
    assert decode('"' + "x" * 5000 + '"', Bounds(max_chars=None, max_depth=2)) == "x" * 5000


def test_nesting_deeper_than_max_depth_is_refused_with_the_depth_found() -> None:
    e = refusal("[" * 9 + "]" * 9)
    assert (e.bound, e.found, e.limit) == ("depth", 9, 8)
    assert str(e) == "nests 9 deep (at most 8)"


def test_nesting_at_max_depth_decodes() -> None:
    assert decode("[" * 8 + "]" * 8, LOOSE) == [[[[[[[[]]]]]]]]


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    assert json_depth('[{"a":"[[[[\\"]]]"}]') == 2
    assert decode('["' + "[" * 50 + '"]', LOOSE) == ["[" * 50]


def test_a_number_longer_than_max_number_chars_is_refused() -> None:
    e = refusal("[1.00000001]", Bounds(max_chars=None, max_depth=2, max_number_chars=8))
    assert (e.bound, str(e)) == ("number", "a number of 10 characters (at most 8)")


def test_an_integer_with_more_than_max_int_digits_is_refused() -> None:
    e = refusal("12345", Bounds(max_chars=None, max_depth=2, max_int_digits=4))
    assert (e.bound, str(e)) == ("int_digits", "an integer of 5 digits (at most 4)")


def test_nan_and_infinity_are_refused_naming_the_constant() -> None:
    for name in ("NaN", "Infinity", "-Infinity"):
        e = refusal(f"[{name}]")
        assert (e.bound, e.reason, str(e)) == ("constant", name, f"{name} is not JSON")


def test_a_float_that_overflows_is_refused_when_floats_must_be_finite() -> None:
    e = refusal("1e999", Bounds(max_chars=None, max_depth=2, finite_floats=True))
    assert (e.bound, str(e)) == ("not_finite", "the number 1e999 is not finite")


def test_a_float_that_overflows_is_infinity_when_finite_floats_is_off() -> None:
    assert decode("1e999", LOOSE) == float("inf")


def test_duplicate_keys_keep_the_last_by_default() -> None:
    assert decode('{"a":1,"a":2}', LOOSE) == {"a": 2}


def test_duplicate_keys_are_refused_when_the_bounds_say_so() -> None:
    e = refusal('{"a":1,"b":0,"a":2}', Bounds(max_chars=None, max_depth=2, duplicate_keys=False))
    assert (e.bound, str(e)) == ("duplicate_key", "the key 'a' appears twice")


def test_text_that_is_not_json_is_refused_with_json_s_reason_and_position() -> None:
    e = refusal('{"a":}')
    assert (e.bound, e.reason, e.pos) == ("syntax", "Expecting value", 5)
    assert str(e) == "Expecting value: line 1 column 6 (char 5)"


def test_the_error_is_an_engine_error_and_a_value_error() -> None:
    e = refusal("nope")
    assert isinstance(e, EngineError) and isinstance(e, ValueError)
