"""Reading a replay file from anywhere: bounded (line, file, steps, JSON nesting and
integer size), every field type-checked, one :class:`ReplayError` for anything wrong."""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO, Any

from niwa.engine import bounded_json
from niwa.engine.bounded_json import Bounds, UntrustedJsonError
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
        if total > MAX_FILE_BYTES:
            raise ReplayError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB: not a replay")
        if result is not None and raw.strip():
            raise ReplayError(f"{path}:{number}: a line after the result line: the file is corrupt")
        line = parse_line(raw, number, header, len(steps), path)
        if isinstance(line, Header):
            header = line
        elif isinstance(line, Step):
            steps.append(line)
        elif isinstance(line, ResultLine):
            result = line
    if header is None:
        raise ReplayError(f"{path}: empty replay file")
    return Replay(header, steps, result)


def parse_line(
    raw: bytes, number: int, header: Header | None, position: int, path: str
) -> Header | Step | ResultLine | None:
    """Line ``number`` of a replay (None if blank), read after ``header`` and
    ``position`` steps: the reader's checks for one line, for a file read as it is
    written (the web's live view). ReplayError names ``path`` and the line."""
    where = f"{path}:{number}"
    if len(raw) > MAX_LINE_BYTES:
        raise ReplayError(f"{where}: line longer than {MAX_LINE_BYTES} bytes: not a replay")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReplayError(f"{where}: not UTF-8 text (byte {e.start}): not a replay") from None
    if not text.strip():
        return None
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
        return _header(d, where)
    if kind in ("decision", "chance"):
        if position >= MAX_STEPS:
            raise ReplayError(f"{where}: more than {MAX_STEPS} steps: not a replay")
        step = _build(Step, d, where)
        _check_step(step, position, header, where)
        return step
    if kind == "result":
        result = _build(ResultLine, d, where)
        _check_result(result, header.players, where)
        return result
    if kind == "header":
        raise ReplayError(f"{where}: a second header line: the file is corrupt")
    shown = printable(kind, 40) if isinstance(kind, str) else type(kind).__name__
    raise ReplayError(f"{where}: unknown line kind {shown!r}")


#: The bounds of one line of a replay file (its length is bounded as bytes, above).
LINE_BOUNDS = Bounds(max_chars=None, max_depth=MAX_DEPTH, max_int_digits=MAX_INT_DIGITS)


def _parse_line(text: str, where: str) -> dict[str, Any]:
    try:
        d = bounded_json.decode(text, LINE_BOUNDS)
    except UntrustedJsonError as e:
        raise ReplayError(f"{where}: {_refusal(e)}") from None
    if not isinstance(d, dict):
        raise ReplayError(f"{where}: a JSON {_type_name(d)}, not an object: not a replay")
    return d


def _refusal(e: UntrustedJsonError) -> str:
    """The words the reader has always used for each refusal."""
    if e.bound == "depth":
        return f"JSON nested deeper than {MAX_DEPTH} levels: not a replay"
    if e.bound == "constant":
        return f"{e.reason} is not a number a replay holds"
    if e.bound == "syntax":
        return f"not JSON ({printable(str(e), 120)})"
    return str(e)


