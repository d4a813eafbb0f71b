"""Names and constants from the rules page, tsubaki.md (shipped beside this package)."""

from __future__ import annotations

from typing import Final

NAME: Final = "tsubaki"
VERSION: Final = "tsubaki@1"
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5
MAX_HAND: Final = 10
EXACT_BONUS: Final = 10


def cite(section: int) -> str:
    """The citation an IllegalAction carries: ``tsubaki.md §N``."""
    return f"{NAME}.md §{section}"
