"""Real ladders for the web tests: built-in bots playing real matches on a fresh store."""

from __future__ import annotations

import shutil
from pathlib import Path

from niwa.ladder import submission
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.played_out import played_out

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
    played_out(settings)


def running_match(data: Path) -> tuple[Path, int, Path, Path]:
    """A store where the built-ins played 2 Blossom matches and a third runs: the
    store's path, the running match's id, the file a worker would write its replay to
    (not there yet), and a finished match's replay to write into it."""
    db = played_store(data, matches=2)
    store = Store.open(str(db))
    try:
        done = store.matches.match(1)
        match_id = store.matches.queue_match(done.game, done.game_version, done.seats, seed=77)
        claimed = store.matches.claim_next()
        assert claimed is not None and claimed.id == match_id
        part = store.files.attempt_replay_path(match_id, claimed.attempts)
        source = data / "source.jsonl"
        shutil.copy(store.files.replay_path(1), source)
    finally:
        store.close()
    return db, match_id, part.with_name(f"{part.name}.4242.part"), source
