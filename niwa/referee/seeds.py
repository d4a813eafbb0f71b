"""Independent random streams derived from one match seed.

Chance, each bot's own seed and each seat's default moves get separate streams, so
that (for example) a timeout that triggers a default move does not shift the
shuffles that follow it.
"""

from __future__ import annotations

import functools
import hashlib
import random


@functools.lru_cache(maxsize=256)
def derive_seed(seed: int, *purpose: object) -> int:
    """A 63-bit seed for ``purpose`` (e.g. ``("chance",)`` or ``("bot", 2)``); the last
    few are kept, since a match asks for each seat's twice (its seat and its Start)."""
    text = "/".join(str(p) for p in (seed, *purpose))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def stream(seed: int, *purpose: object) -> random.Random:
    """A ``random.Random`` for ``purpose`` under the match seed."""
    return random.Random(derive_seed(seed, *purpose))


def bot_seed(match_seed: int, seat: int) -> int:
    """The seed a seat's bot receives in ``Start`` (``niwa replay ask`` sends it again)."""
    return derive_seed(match_seed, "bot", seat)
