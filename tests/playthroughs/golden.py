"""Where the golden playthroughs live and how they are named: one file per game, rules
version and player count, ``<name>@<version>-<players>p.jsonl``."""

from __future__ import annotations

from pathlib import Path

from niwa import engine

DIR = Path(__file__).parent / "data"
REGENERATE = "python -m tests.playthroughs.regenerate GAME"


def path_for(game: engine.Game, players: int) -> Path:
    """The golden file of ``game`` at its current rules version (info.version)."""
    return DIR / f"{game.info.version}-{players}p.jsonl"


def expected_paths() -> dict[Path, tuple[str, int]]:
    """Every golden file the registered games need: path -> (game name, players)."""
    out: dict[Path, tuple[str, int]] = {}
    for name in engine.games():
        game = engine.load(name)
        for players in range(game.info.min_players, game.info.max_players + 1):
            out[path_for(game, players)] = (name, players)
    return out


def regenerate_command(name: str) -> str:
    return REGENERATE.replace("GAME", name)
