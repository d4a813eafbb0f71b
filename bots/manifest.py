"""``bot.toml``: what a bot directory declares about itself.

::

    name = "python-example"      # letters, digits, - and _
    version = "1.0.0"
    games = ["blossom"]          # the games it plays, or ["*"]
    command = ["python3", "bot.py"]   # run in the bot's directory; argv, no shell
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "bot.toml"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ManifestError(ValueError):
    """A bot directory without a usable bot.toml; the message names the fix."""


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    games: tuple[str, ...]
    command: tuple[str, ...]

    def plays(self, game: str) -> bool:
        return "*" in self.games or game in self.games


def load(directory: str | Path) -> Manifest:
    """Read and check ``directory/bot.toml``."""
    path = Path(directory) / MANIFEST
    if not Path(directory).is_dir():
        raise ManifestError(f"{directory} is not a directory: give a bot directory or builtin:NAME")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path} is missing: a bot directory needs a bot.toml") from None
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path}: not valid TOML ({e})") from None
    name, version = data.get("name"), data.get("version")
    games, command = data.get("games"), data.get("command")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ManifestError(f"{path}: 'name' must be a short name of letters, digits, - and _")
    if not isinstance(version, str) or not version:
        raise ManifestError(f"{path}: 'version' must be a string such as \"1.0.0\"")
    if not isinstance(games, list) or not games or not all(isinstance(g, str) for g in games):
        raise ManifestError(f"{path}: 'games' must list the games it plays, or [\"*\"]")
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(c, str) and c for c in command)
    ):
        raise ManifestError(f"{path}: 'command' must be the argv that starts the bot")
    return Manifest(name, version, tuple(games), tuple(command))
