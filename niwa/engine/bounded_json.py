"""One JSON decoder for text from outside (a bot's action, a replay file from anywhere,
an HTTP or gRPC request): every bound is an argument, and anything over one, or not
JSON, raises :class:`UntrustedJsonError` naming what was wrong.

It lives in the engine (the bottom layer, pure and sans-IO) so that the referee, the
ladder and the web front can all import it. Each caller passes its own bounds and may
word the error for its reader from the error's ``bound``, ``found`` and ``limit``.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from niwa.engine.api import JSON
from niwa.errors import EngineError

#: What an :class:`UntrustedJsonError` is about.
Bound = Literal["chars", "depth", "number", "int_digits", "not_finite", "constant",
                "duplicate_key", "syntax"]  # fmt: skip

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class UntrustedJsonError(EngineError, ValueError):
    """Text refused by :func:`decode`: ``bound`` names the bound (or ``syntax``),
    ``found`` and ``limit`` give the figures where there are some."""

    def __init__(self, bound: Bound, message: str, found: int = 0, limit: int = 0,
                 reason: str = "", pos: int = 0) -> None:  # fmt: skip
        super().__init__(message)
        self.bound: Bound = bound
        self.found = found
        self.limit = limit
        #: For ``syntax``: what json found wrong, and where in the text (a character).
        self.reason = reason
        self.pos = pos


@dataclass(frozen=True)
class Bounds:
    """What :func:`decode` accepts. ``None`` leaves a bound off."""

    #: Longest text, in characters.
    max_chars: int | None
    #: Deepest nesting of arrays and objects.
    max_depth: int
    #: Longest number (sign, fraction and exponent included), in characters.
    max_number_chars: int | None = None
    #: Most digits (sign included) of an integer.
    max_int_digits: int | None = None
    #: Whether a float that overflows to infinity (``1e999``) is refused.
    finite_floats: bool = False
    #: Whether an object may repeat a key (the last one wins, as ``json`` does).
    duplicate_keys: bool = True


def json_depth(text: str) -> int:
    """The deepest array/object nesting of JSON text, without recursion: strings are
    blanked out, then the brackets left are counted (in C, via accumulate)."""
    if text.count("[") + text.count("{") == 0:
        return 0
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def decode(text: str, bounds: Bounds) -> JSON:
    """``text`` decoded as JSON within ``bounds``; NaN and Infinity are never accepted.
    Raises :class:`UntrustedJsonError` (and nothing else) when it is not."""
    if bounds.max_chars is not None and len(text) > bounds.max_chars:
        raise UntrustedJsonError(
            "chars", f"{len(text)} characters (at most {bounds.max_chars})",
            len(text), bounds.max_chars,
        )  # fmt: skip
    # Counting brackets is cheap; measuring the depth is needed only past the bound.
    if text.count("[") + text.count("{") > bounds.max_depth:
        depth = json_depth(text)
        if depth > bounds.max_depth:
            raise UntrustedJsonError(
                "depth", f"nests {depth} deep (at most {bounds.max_depth})",
                depth, bounds.max_depth,
            )  # fmt: skip
    try:
        value: JSON = json.loads(
            text,
            parse_int=_int_parser(bounds),
            parse_float=_float_parser(bounds),
            parse_constant=_constant,
            object_pairs_hook=None if bounds.duplicate_keys else _unique_keys,
        )
    except json.JSONDecodeError as e:
        raise UntrustedJsonError("syntax", str(e), reason=e.msg, pos=e.pos) from None
    except RecursionError:  # unreachable within a sane max_depth, but never escapes
        raise UntrustedJsonError("depth", "nested too deep to decode") from None
    return value


def _too_long(text: str, bounds: Bounds) -> None:
    limit = bounds.max_number_chars
    if limit is not None and len(text) > limit:
        raise UntrustedJsonError(
            "number", f"a number of {len(text)} characters (at most {limit})", len(text), limit
        )


def _int_parser(bounds: Bounds) -> Any:
    def parse(text: str) -> int:
        _too_long(text, bounds)
        limit = bounds.max_int_digits
        if limit is not None and len(text) > limit:
            raise UntrustedJsonError(
                "int_digits", f"an integer of {len(text)} digits (at most {limit})",
                len(text), limit,
            )  # fmt: skip
        return int(text)

    return parse


def _float_parser(bounds: Bounds) -> Any:
    def parse(text: str) -> float:
        _too_long(text, bounds)
        value = float(text)
        if bounds.finite_floats and not math.isfinite(value):
            raise UntrustedJsonError("not_finite", f"the number {text} is not finite")
        return value

    return parse


def _constant(name: str) -> Any:
    raise UntrustedJsonError("constant", f"{name} is not JSON", reason=name)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for key, value in pairs:
        if key in d:
            raise UntrustedJsonError("duplicate_key", f"the key {key[:40]!r} appears twice")
        d[key] = value
    return d
