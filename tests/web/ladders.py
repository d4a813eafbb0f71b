"""Real ladders for the web tests: built-in bots playing real matches on a fresh store."""

from __future__ import annotations

import threading
from pathlib import Path

from niwa.ladder import submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, Store

BUILTINS = ("random", "greedy")


def played_store(data: Path, game: str = "blossom", matches: int = 4) -> Path:
    """A store where the built-ins played ``matches`` rated matches of ``game``; its path."""
    db = data / "ladder.db"
    play_builtins(str(db), data, game, matches)
    return db


def play_builtins(url: str, data: Path, game: str = "blossom", matches: int = 4) -> None:
    """The built-ins play ``matches`` rated matches of ``game`` on the store at ``url``,
    through a runner whose folder is ``data``."""
    store = Store.open(url, data)
    try:
        for name in BUILTINS:
            submission.builtin_bot(store, name, game, ACTIVE)
    finally:
        store.close()
    settings = Settings(
        url, data, workers=1, max_matches=matches, seed=1, games=(game,), log_level="warning",
    )  # fmt: skip
    Runner(settings).run(threading.Event())
