"""Reading a replay file from anywhere: bounded (line, file, steps, JSON nesting and
integer size), every field type-checked, one :class:`ReplayError` for anything wrong."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import IO, Any

from niwa.referee.replay.check import _build, _check_result, _check_step, _header, _type_name
from niwa.referee.replay.model import (
    SCHEMA,
    SCHEMAS,
    Header,
    Replay,
    ReplayError,
    ResultLine,
    Step,
)
from niwa.referee.text import printable

#: The largest honest line (a result with every seat's stderr tail) is far below 1 MiB.
MAX_LINE_BYTES = 1 << 20
MAX_FILE_BYTES = 64 << 20
MAX_STEPS = 100_000
MAX_DEPTH = 32  # JSON nesting of one line; honest lines nest at most 6 deep
MAX_INT_DIGITS = 40  # a seed or a count; Python would otherwise parse 4,300 digits


def read(path: str | Path) -> Replay:
    """Parse a replay file; a missing result line is allowed (an interrupted match).

    Anything wrong with the file (unreadable, too large, not UTF-8, not JSON, nested
    too deep, a field of the wrong type, an unknown schema) raises :class:`ReplayError`
    with one line naming the file, the line and the field; nothing else escapes."""
    try:
        with Path(path).open("rb") as f:
            return _read(f, str(path))
    except OSError as e:
        raise ReplayError(f"cannot read replay {path}: {e.strerror or e}") from None


def parse(content: bytes, name: str) -> Replay:
    """:func:`read` for a file already in memory; ``name`` stands for it in errors."""
    return _read(io.BytesIO(content), name)


def _read(f: IO[bytes], path: str) -> Replay:
    header: Header | None = None
    steps: list[Step] = []
    result: ResultLine | None = None
    total = 0
    number = 0
    while True:
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        number += 1
        total += len(raw)
        where = f"{path}:{number}"
        if len(raw) > MAX_LINE_BYTES:
            raise ReplayError(f"{where}: line longer than {MAX_LINE_BYTES} bytes: not a replay")
        if total > MAX_FILE_BYTES:
            raise ReplayError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB: not a replay")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ReplayError(
                f"{where}: not UTF-8 text (byte {e.start}): not a replay"
            ) from None
        if not text.strip():
            continue
        if result is not None:
            raise ReplayError(f"{where}: a line after the result line: the file is corrupt")
        d = _parse_line(text, where)
        kind = d.get("kind")
        if header is None:
            if number != 1 or kind != "header":
                raise ReplayError(f"{path}: not a {SCHEMA} replay (line 1 must be its header)")
            if d.get("schema") not in SCHEMAS:
                found = d.get("schema")
                shown = printable(found, 40) if isinstance(found, str) else type(found).__name__
                raise ReplayError(
                    f"{path}: replay schema {shown!r}, but this niwa reads "
                    f"{' and '.join(SCHEMAS)} only"
                )
            header = _header(d, where)
        elif kind in ("decision", "chance"):
            if len(steps) >= MAX_STEPS:
                raise ReplayError(f"{where}: more than {MAX_STEPS} steps: not a replay")
            step = _build(Step, d, where)
            _check_step(step, len(steps), header, where)
            steps.append(step)
        elif kind == "result":
            result = _build(ResultLine, d, where)
            _check_result(result, header.players, where)
        elif kind == "header":
            raise ReplayError(f"{where}: a second header line: the file is corrupt")
        else:
            shown = printable(kind, 40) if isinstance(kind, str) else type(kind).__name__
            raise ReplayError(f"{where}: unknown line kind {shown!r}")
    if header is None:
        raise ReplayError(f"{path}: empty replay file")
    return Replay(header, steps, result)


def _reject_constant(name: str) -> None:
    raise ReplayError(f"{name} is not a number a replay holds")


def _bounded_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ReplayError(f"an integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


_STRUCTURE = re.compile(r'[\[\]{}"\\]')


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests JSON arrays/objects deeper than MAX_DEPTH (strings skipped)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    escape_at = -2
    for m in _STRUCTURE.finditer(text):
        ch = m.group()
        if in_string:
            # A backslash escapes the next character only when it is right after it.
            if escaped and m.start() == escape_at + 1:
                escaped = False
                continue
            escaped = False
            if ch == "\\":
                escaped, escape_at = True, m.start()
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _parse_line(text: str, where: str) -> dict[str, Any]:
    if _too_deep(text):
        raise ReplayError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels: not a replay")
    try:
        d = json.loads(text, parse_int=_bounded_int, parse_constant=_reject_constant)
    except ReplayError as e:
        raise ReplayError(f"{where}: {e}") from None
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise ReplayError(f"{where}: not JSON ({printable(str(e), 120)})") from None
    if not isinstance(d, dict):
        raise ReplayError(f"{where}: a JSON {_type_name(d)}, not an object: not a replay")
    return d


