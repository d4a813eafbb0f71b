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
    store = Store.open(str(db), data)
    try:
        for name in BUILTINS:
            submission.builtin_bot(store, name, game, ACTIVE)
    finally:
        store.close()
    settings = Settings(
        str(db), data, workers=1, max_matches=matches, seed=1, games=(game,),
        log_level="warning",
    )  # fmt: skip
    Runner(settings).run(threading.Event())
    return db
