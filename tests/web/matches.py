"""Real matches for the web tests: built-in bots in process, replays on disk."""

from __future__ import annotations

from pathlib import Path

from niwa.cli import main

GAMES = ("blossom", "sakura", "bonsai", "miyabi")


def play(game: str, directory: Path, seed: int = 3, seats: int = 2,
         html: Path | None = None, options: tuple[str, ...] = ()) -> Path:
    """Play ``game`` between built-in bots (random, then greedy) and return its replay."""
    replay = directory / f"{game}-{seed}.jsonl"
    args = ["play", game, "--in-process", "--quiet", "--seed", str(seed), "--replay", str(replay)]
    for i in range(seats):
        args += ["--bot", "builtin:random" if i % 2 == 0 else "builtin:greedy"]
    for option in options:
        args += ["--option", option]
    if html is not None:
        args += ["--html", str(html)]
    assert main(args) == 0
    return replay
