"""``niwa ladder demo``: a ladder of the built-in bots, every registered game, on disk.

The data stays in the folder (``./niwa-data`` by default), so a second run picks up
the same database and adds to it. The console shows one progress line and whatever goes
wrong; every log event goes to ``demo.log`` in the folder (``--verbose``: to stderr).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from niwa import engine
from niwa.bots import builtin
from niwa.ladder import report, submission
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.statuses import MatchKind
from niwa.ladder.store import ACTIVE, DONE, Bot, Match, Store
from niwa.referee.logs import CLEAR_LINE

DEFAULT_MATCHES_PER_GAME = 25
#: The search bot thinks for a fixed 30 ms a decision here, so that the demo's hundred
#: matches take a couple of minutes on two cores (on the ladder it uses its clock).
DEMO_OPTIONS = {"mcts": "mcts?seconds=0.03"}


def register_builtins(store: Store) -> list[Bot]:
    """Every built-in bot in every registered game it can play (greedy needs the
    game's heuristic, policy its learned value). While fewer built-ins exist than a
    lively table needs, numbered copies of the first fill in (they should rate alike:
    a check on the intervals as much as filler)."""
    bots = []
    for game in engine.games():
        info = engine.load(game).info
        names = [name for name in builtin.names() if builtin.plays(name, game)]
        for name in names:
            spec = DEMO_OPTIONS.get(name, name)
            bots.append(submission.builtin_bot(store, spec, game, ACTIVE, alias=name))
        wanted = min(info.max_players, max(3, info.min_players + 1))
        for copy in range(2, wanted - len(names) + 2):
            alias = f"{names[0]}-{copy}"
            bots.append(submission.builtin_bot(store, names[0], game, ACTIVE, alias=alias))
    return bots


class Progress:
    """The demo's console: one line, redrawn in place on a terminal; elsewhere a plain
    line per tenth of the demo's matches (and per demo's worth after them, when it
    serves on)."""

    def __init__(
        self, total: int, stream: TextIO | None = None, when_done: str = ""
    ) -> None:
        self.total = max(total, 1)
        self.stream = stream or sys.stderr
        self.when_done = when_done  # said once, when the demo's matches are played
        self.done = 0
        self.per_game: Counter[str] = Counter()
        self.started = time.monotonic()
        self.tty = self.stream.isatty()
        self._drawn = False  # a line drawn in place, with no newline yet

    def line(self) -> str:
        played = f"{self.done}/{self.total}" if self.done <= self.total else str(self.done)
        games = ", ".join(f"{game} {n}" for game, n in sorted(self.per_game.items()))
        return f"played {played} matches in {_duration(time.monotonic() - self.started)}: {games}"

    def update(self, match: Match) -> None:
        if match.kind != MatchKind.RATED:
            return
        self.done += 1
        self.per_game[match.game] += 1
        if self.tty:
            self.stream.write(CLEAR_LINE + self.line())
            self._drawn = True
        elif self._milestone():
            self.stream.write(self.line() + "\n")
        if self.done == self.total and self.when_done:
            self.close()
            self.stream.write(self.when_done + "\n")
        self.stream.flush()

    def _milestone(self) -> bool:
        if self.done > self.total:
            return self.done % self.total == 0
        return self.done * 10 // self.total != (self.done - 1) * 10 // self.total

    def close(self) -> None:
        """End the line drawn in place, if one is."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def log_file(data_dir: Path) -> Path:
    """Where the demo's log events go unless ``--verbose`` shows them."""
    return data_dir / "demo.log"


def prepare(
    data_dir: Path,
    matches_per_game: int = DEFAULT_MATCHES_PER_GAME,
    workers: int = 0,
    seed: int | None = None,
    logs_to: Path | None = None,
    out: TextIO | None = None,
) -> Settings:
    """Register the built-ins in the store under ``data_dir`` and say what the demo will
    play; return the settings of a ladder that stops after the demo's matches."""
    out = out or sys.stdout
    data_dir.mkdir(parents=True, exist_ok=True)
    db_url = str(data_dir / "ladder.db")
    store = Store.open(db_url, data_dir)
    try:
        bots = register_builtins(store)
        already = store.matches.counts().get(DONE, 0)
    finally:
        store.close()
    games = engine.games()
    settings = Settings(
        db_url, data_dir, workers=workers, max_matches=matches_per_game * len(games),
        seed=seed, log_file=logs_to,
    )  # fmt: skip
    print(
        f"niwa ladder demo: {len(bots)} built-in bots in {len(games)} games "
        f"({', '.join(games)}); playing {settings.max_matches} matches on "
        f"{settings.worker_count} workers; data in {data_dir}/ ({already} matches there "
        f"already)" + (f"; log in {logs_to}" if logs_to else ""),
        file=out,
        flush=True,
    )
    return settings


def run(settings: Settings, out: TextIO | None = None) -> None:
    """Play the demo's matches with a progress line, then print the leaderboards."""
    out = out or sys.stdout
    progress = Progress(settings.max_matches or 0)
    try:
        Runner(settings, on_finished=progress.update).run(threading.Event())
    finally:
        progress.close()
    data_dir = settings.data_dir or Path(".")
    store = Store.open(settings.db_url, data_dir)
    try:
        for board in Reads(store).leaderboards():
            print("\n" + report.leaderboard(board), file=out)
        latest = store.matches.matches(state=DONE, limit=1)
        print(f"\ndatabase: {settings.db_url}   replays: {data_dir / 'replays'}/", file=out)
        if latest:
            print(
                f"try: niwa replay verify {store.files.replay_path(latest[0].id)}\n"
                f"     niwa ladder matches --db {settings.db_url}",
                file=out,
            )
    finally:
        store.close()


def serving(settings: Settings) -> tuple[Settings, Progress]:
    """The demo as ``--serve`` runs it: the pages and the API from the start, no match
    limit (the bots submitted while it serves are validated and played), and a progress
    line that says when the demo's own matches are done."""
    total = settings.max_matches or 0
    progress = Progress(
        total,
        when_done=f"the demo's {total} matches are played (leaderboards: the web pages, or "
        f"niwa ladder leaderboard --db {settings.db_url}); it keeps playing until Ctrl-C",
    )
    return replace(settings, max_matches=None), progress
