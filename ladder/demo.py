"""``niwa ladder demo``: a ladder of the built-in bots, every registered game, on disk.

The data stays in the folder (``./niwa-data`` by default), so a second run picks up
the same database and adds to it.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TextIO

import engine
from bots import builtin
from ladder import report, submission
from ladder.reads import Reads
from ladder.runner import Runner, Settings
from ladder.store import ACTIVE, DONE, Bot, Match, Store

DEFAULT_MATCHES_PER_GAME = 25
#: The search bot thinks for a fixed 30 ms a decision here, so that the demo's hundred
#: matches take a couple of minutes on two cores (on the ladder it uses its clock).
DEMO_OPTIONS = {"mcts": "mcts?seconds=0.03"}


def register_builtins(store: Store) -> list[Bot]:
    """Every built-in bot in every registered game. While fewer built-ins exist than
    a lively table needs, numbered copies of the first fill in (they should rate
    alike: a check on the intervals as much as filler)."""
    names = builtin.names()
    bots = []
    for game in engine.games():
        info = engine.load(game).info
        for name in names:
            spec = DEMO_OPTIONS.get(name, name)
            bots.append(submission.builtin_bot(store, spec, game, ACTIVE, alias=name))
        wanted = min(info.max_players, max(3, info.min_players + 1))
        for copy in range(2, wanted - len(names) + 2):
            alias = f"{names[0]}-{copy}"
            bots.append(submission.builtin_bot(store, names[0], game, ACTIVE, alias=alias))
    return bots


class Progress:
    """A one-line progress bar on a terminal; a line per tenth of the way otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.started = time.monotonic()
        self.tty = self.stream.isatty()
        self._last_tenth = -1

    def update(self, match: Match) -> None:
        if match.kind != "rated":
            return
        self.done += 1
        elapsed = time.monotonic() - self.started
        filled = self.width * self.done // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        line = (
            f"[{bar}] {self.done}/{self.total} matches  {elapsed:5.1f}s  "
            f"last: {match.game} #{match.id}"
        )
        if self.tty:
            self.stream.write("\r" + line.ljust(79))
        elif self.done * 10 // self.total != self._last_tenth:
            self._last_tenth = self.done * 10 // self.total
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def run(
    data_dir: Path,
    matches_per_game: int = DEFAULT_MATCHES_PER_GAME,
    workers: int = 0,
    seed: int | None = None,
    out: TextIO | None = None,
) -> Settings:
    """Register the built-ins, play a bounded ladder, print the leaderboards; return
    the settings (for ``--serve``)."""
    out = out or sys.stdout
    data_dir.mkdir(parents=True, exist_ok=True)
    db_url = str(data_dir / "ladder.db")
    store = Store.open(db_url, data_dir)
    try:
        bots = register_builtins(store)
        already = store.counts().get(DONE, 0)
        games = engine.games()
        total = matches_per_game * len(games)
        settings = Settings(
            db_url, data_dir, workers=workers, max_matches=total, seed=seed,
            log_level="warning",
        )
        print(
            f"niwa ladder demo: {len(bots)} built-in bots in {len(games)} games "
            f"({', '.join(games)}); playing {total} matches on {settings.worker_count} "
            f"workers; data in {data_dir}/ ({already} matches there already)",
            file=out,
            flush=True,
        )
        progress = Progress(total)
        Runner(settings, on_finished=progress.update).run(threading.Event())
        progress.close()
        for board in Reads(store).leaderboards():
            print("\n" + report.leaderboard(board), file=out)
        latest = store.matches(state=DONE, limit=1)
        print(f"\ndatabase: {data_dir / 'ladder.db'}   replays: {data_dir / 'replays'}/", file=out)
        if latest:
            print(
                f"try: niwa replay verify {store.replay_path(latest[0].id)}\n"
                f"     niwa ladder matches --db {db_url}",
                file=out,
            )
    finally:
        store.close()
    return settings


def serving(settings: Settings) -> Settings:
    """The demo's ladder as ``--serve`` keeps it running: no match limit, so the bots
    submitted while it serves are validated and played."""
    return replace(settings, max_matches=None, log_level="info")
