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


def forged_page(lines: list[str], directory: Path, name: str) -> Path:
    """An offline viewer page of the replay ``lines`` (an edited real replay), written
    to ``directory`` as ``name``.jsonl and ``name``.html."""
    replay = directory / f"{name}.jsonl"
    replay.write_text("\n".join(lines) + "\n")
    page = directory / f"{name}.html"
    assert main(["replay", "html", str(replay), "-o", str(page)]) == 0
    return page
