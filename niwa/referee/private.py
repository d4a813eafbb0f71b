"""What of a replay belongs to a bot's owner only, and a replay file without it.

Public: every action, status, time and the referee's ``detail`` line (what went wrong,
which a seat's opponents and spectators need to read the match), and the first
:data:`PUBLIC_NOTE_CHARS` characters of a move's ``note``. Private: a move's ``debug``
text and ``thinking`` (shares, values, principal variation: what a bot thinks is as
telling to its opponents as its debug text), the rest of its ``note``, and the
``stderr_tail`` of a seat in the result line.
The chain and the state hashes cover none of these, so a cut file still verifies.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from niwa.engine import canonical_json

#: Characters of a move's note anyone may read (notes are at most 200); enough for
#: "value 0.532" or "1200 iterations, value 0.61", not for a table of evaluations.
PUBLIC_NOTE_CHARS = 40
#: Ends a note that was cut.
CUT = "…"

# A line that has none of these bytes has nothing private (JSON spells keys as such).
_PRIVATE_KEYS = (b'"debug":', b'"note":', b'"stderr_tail":', b'"thinking":')
#: A move's keys that go whole.
_PRIVATE_MOVE_KEYS = ("debug", "thinking")


def public_note(note: str) -> str:
    """The part of a note anyone may read: its first PUBLIC_NOTE_CHARS characters, and
    :data:`CUT` when there was more."""
    return note if len(note) <= PUBLIC_NOTE_CHARS else note[:PUBLIC_NOTE_CHARS] + CUT


def _cut_line(line: dict[str, Any], keep: Collection[int]) -> bool:
    """Cut the private fields of the seats not in ``keep`` from one parsed line, in
    place; whether anything changed."""
    changed = False
    if line.get("kind") == "result":
        for seat in line.get("seats", ()):
            if seat.get("seat") not in keep and seat.get("stderr_tail"):
                seat["stderr_tail"] = []
                changed = True
        return changed
    for move in line.get("moves", ()):
        if move.get("seat") in keep:
            continue
        for key in _PRIVATE_MOVE_KEYS:
            if move.pop(key, None) is not None:
                changed = True
        note = move.get("note")
        if isinstance(note, str) and public_note(note) != note:
            move["note"] = public_note(note)
            changed = True
    return changed


def public_replay(content: bytes, keep: Collection[int] = ()) -> bytes:
    """A replay file (JSON Lines, as the referee writes it) without the private fields
    of every seat not in ``keep``; lines with nothing to cut stay byte for byte."""
    out = []
    for raw in content.splitlines(keepends=True):
        if any(key in raw for key in _PRIVATE_KEYS):
            line = _parsed(raw)
            if line is not None and _cut_line(line, keep):
                raw = canonical_json(line).encode() + b"\n"
        out.append(raw)
    return b"".join(out)


def _parsed(raw: bytes) -> dict[str, Any] | None:
    """One line parsed, or None if it is not a JSON object (left alone: the reader
    refuses such a file anyway)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
