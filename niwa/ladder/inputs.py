"""The one check of what a caller sends: ids, numbers and text, for the web routes, the
gRPC fields and the CLI alike.

A number is ASCII digits only (``str.isdigit`` also takes ``²`` and ``٣``, which
``int`` then refuses or reads as another number); an id is at most SQLite's and
PostgreSQL's largest integer, so a bigger one names nothing (NOT_FOUND, 404) where it
would have overflowed the database driver; text has no NUL (PostgreSQL refuses it) and
a bounded length. A malformed value is a :class:`StoreError` (INVALID_ARGUMENT, 400)
whose line names the field and what it accepts.
"""

from __future__ import annotations

from niwa.ladder.store import StoreError

#: The largest id a store holds: a signed 64-bit integer (SQLite's INTEGER, BIGINT).
MAX_ID = 2**63 - 1
#: Longest game name, state, bot or owner name a request may carry.
MAX_TEXT = 64
#: Digits a number may have once leading zeros are gone (2**63 - 1 has 19).
_MAX_DIGITS = 19


class NotFound(StoreError):
    """What the request names does not exist (gRPC NOT_FOUND, HTTP 404)."""


def is_ascii_number(text: str) -> bool:
    """Whether ``text`` is a whole number in ASCII digits (no sign)."""
    return text.isascii() and text.isdigit()


def parse_number(field: str, text: str, low: int, high: int) -> int:
    """``text`` as a whole number in [low, high] (``low`` may be negative)."""
    negative = text.startswith("-") and low < 0
    digits = text[1:] if negative else text
    if not is_ascii_number(digits) or len(digits.lstrip("0")) > _MAX_DIGITS:
        raise StoreError(_range(field, low, high, text))
    value = -int(digits) if negative else int(digits)
    if not low <= value <= high:
        raise StoreError(_range(field, low, high, text))
    return value


def parse_id(field: str, text: str) -> int:
    """``text`` as an id: ASCII digits, positive; one past :data:`MAX_ID` names nothing."""
    if not is_ascii_number(text):
        raise StoreError(f"{field} {_shown(text)}: an id is a whole number in ASCII digits 0-9")
    if len(text.lstrip("0")) > _MAX_DIGITS or int(text) > MAX_ID:
        raise NotFound(f"no {field} {_shown(text)}: ids go up to {MAX_ID}")
    return check_id(field, int(text))


def check_id(field: str, value: int, optional: bool = False) -> int:
    """An id given as a number: positive (0 too if ``optional``: none named)."""
    if value < 0 or (value == 0 and not optional):
        raise StoreError(f"{field} {value}: ids are positive")
    if value > MAX_ID:
        raise NotFound(f"no {field} {value}: ids go up to {MAX_ID}")
    return value


def check_text(field: str, value: str, limit: int = MAX_TEXT) -> str:
    """Text a request names something with: at most ``limit`` characters, no NUL."""
    if len(value) > limit:
        raise StoreError(f"{field} is {len(value)} characters long: at most {limit}")
    if "\0" in value:
        raise StoreError(f"{field} contains a NUL character: names are plain text")
    return value


def _range(field: str, low: int, high: int, text: str) -> str:
    return (
        f"{field} must be a whole number from {low} to {high} in ASCII digits, "
        f"not {_shown(text)}"
    )


def _shown(text: str) -> str:
    """The value as the message quotes it: escaped, and cut when long."""
    return repr(text if len(text) <= 24 else text[:24] + "…")
