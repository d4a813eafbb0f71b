"""What of a dead bot's stderr to keep, and what to show.

The replay keeps a bounded tail per seat (:func:`for_replay`). Commands show a few
lines of it under the OUT line (:func:`cause_lines`), chosen so the error itself is
among them: a Python traceback ends with its exception line, but Node ends with
``Node.js v20...`` after a blank line and prints the error line above its stack
(``Error: Cannot find module '@grpc/grpc-js'``, then ``Require stack:`` and frames).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Bytes (UTF-8, newlines counted) of stderr the replay keeps per seat that went out.
REPLAY_TAIL_BYTES = 4096
#: Lines shown under an OUT line.
SHOWN_LINES = 5
#: Lines shown after the error line (Node's "Require stack:" and the requiring file).
AFTER_ERROR = 2

# An exception or error line as runtimes print them, at the start of a line (stack
# frames are indented): "ModuleNotFoundError: ...", "Error: Cannot find module ...",
# "TypeError [ERR_...]: ...", "thread 'main' panicked at ...", "panic: ...",
# "terminate called after throwing ...", "Segmentation fault".
_ERROR = re.compile(
    r"^(?:[\w.$]*(?:Error|Exception)\b|Uncaught \w|panic: |thread '.*' panicked|"
    r"terminate called|Segmentation fault|fatal error:|FATAL ERROR:)"
)
# Node's trailer after an uncaught error: "Node.js v20.11.1".
_TRAILER = re.compile(r"^Node\.js v\d")


def for_replay(lines: Sequence[str], limit: int = REPLAY_TAIL_BYTES) -> list[str]:
    """The last lines that fit in ``limit`` bytes (each with its newline); a single
    last line longer than that is cut to fit."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        cost = len(line.encode("utf-8", "replace")) + 1
        if size + cost > limit:
            if not kept:  # keep at least the end of the very last line
                tail = line.encode("utf-8", "replace")[-(limit - 1) :]
                kept.append(tail.decode("utf-8", "ignore"))
            break
        kept.append(line)
        size += cost
    kept.reverse()
    return kept


def cause_lines(lines: Sequence[str], count: int = SHOWN_LINES) -> list[str]:
    """Up to ``count`` non-blank lines of a stderr tail that show why the bot died:
    the last error line, a few lines before it (the frames that raised it) and up to
    :data:`AFTER_ERROR` after it; without an error line, the last lines (Node's
    ``Node.js vNN`` trailer left out)."""
    text = [ln for ln in lines if ln.strip() and not _TRAILER.match(ln)]
    errors = [i for i, ln in enumerate(text) if _ERROR.match(ln)]
    if not errors or count < 1:
        return text[-count:] if count > 0 else []
    at = errors[-1]
    after = min(AFTER_ERROR, len(text) - 1 - at, count - 1)
    first = max(0, at - (count - 1 - after))
    return text[first : at + 1 + after]
