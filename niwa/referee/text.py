"""Making untrusted text safe to print on a terminal.

Bot names, versions, notes, failure details, stderr lines and owner names are written
by people the referee and the ladder do not trust. Printed raw, an ESC starts an escape
sequence (recolour, move the cursor, retitle the window, rewrite earlier lines), a CR or
backspace overwrites what was printed, a newline forges a table row, and a Unicode bidi
override or isolate reorders what the reader sees. :func:`printable` turns every such
character into a visible escape (``\\x1b``, ``\\r``, ``\\u202e``) so the text reads as
what it is, on one line.
"""

from __future__ import annotations

import unicodedata

#: Shown at the end of text cut to its limit.
ELLIPSIS = "…"

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Categories escaped: Cc (C0, DEL, C1 controls), Cf (format characters: bidi
# embeddings, overrides and isolates, marks, zero-width characters, BOM, tags),
# Cs (lone surrogates: they cannot even be encoded), Zl and Zp (line and paragraph
# separators, which some terminals and viewers break lines at).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Letters and marks that render as nothing (Hangul fillers, the combining grapheme
# joiner): they hide text or make two names look alike.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0")


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _needs_escape(ch: str) -> bool:
    return ch in _INVISIBLE or unicodedata.category(ch) in _ESCAPED_CATEGORIES


def printable(s: str, limit: int | None = None) -> str:
    """``s`` with control, format and bidi characters escaped, on one line.

    With ``limit``, the result is at most ``limit`` characters: longer text is cut
    (never inside an escape) and ends with an ellipsis."""
    if not isinstance(s, str):  # a caller passing a non-string still gets text
        s = str(s)
    if limit is not None and limit < 1:
        return ""
    if s.isprintable() and _INVISIBLE.isdisjoint(s):  # the common case
        return s if limit is None or len(s) <= limit else s[: limit - 1] + ELLIPSIS
    parts: list[str] = []
    size = 0
    for ch in s:
        piece = _escape(ch) if _needs_escape(ch) else ch
        parts.append(piece)
        size += len(piece)
        if limit is not None and size > limit:
            break
    if limit is None or size <= limit:
        return "".join(parts)
    # Too long: drop whole pieces until the ellipsis fits.
    while parts and size + len(ELLIPSIS) > limit:
        size -= len(parts.pop())
    return "".join(parts) + ELLIPSIS


def printable_lines(s: str, limit: int | None = None) -> list[str]:
    """``s`` split at its line breaks (``\\n``, ``\\r\\n``), each line escaped as by
    :func:`printable`: multi-line text (a bot's debug output) keeps its lines, and
    every other control character is still shown as an escape."""
    return [printable(line, limit) for line in s.replace("\r\n", "\n").split("\n")]
