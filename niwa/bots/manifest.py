"""``bot.toml``: what a bot directory declares about itself.

::

    name = "python-example"      # letters, digits, ., - and _ (1-64, a letter or digit first)
    version = "1.0.0"            # letters, digits, ., +, - and _ (1-32)
    games = ["blossom"]          # the games it plays, or ["*"]
    command = ["python3", "bot.py"]   # run in the bot's directory; argv, no shell

Every field is bounded: a manifest comes from strangers on a ladder, and its name and
version are shown in every listing and replay.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from niwa.errors import BotError

MANIFEST = "bot.toml"
MANIFEST_BYTES = 64 * 1024
NAME_CHARS = 64
VERSION_CHARS = 32
GAMES = 32
COMMAND_ARGS = 64
ARG_CHARS = 1024

# fullmatch only: with re.match and "$", "alpha\n" would pass as a second "alpha".
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.-]{{0,{NAME_CHARS - 1}}}")
_VERSION = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.+-]{{0,{VERSION_CHARS - 1}}}")
_GAME = re.compile(r"\*|[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class ManifestError(BotError, ValueError):
    """A bot directory without a usable bot.toml; the message names the fix."""


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    games: tuple[str, ...]
    command: tuple[str, ...]

    def plays(self, game: str) -> bool:
        return "*" in self.games or game in self.games


def valid_name(name: object) -> bool:
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def valid_version(version: object) -> bool:
    return isinstance(version, str) and _VERSION.fullmatch(version) is not None


def name_problem(name: object) -> str:
    """Why ``name`` is not a bot name ("" if it is one)."""
    if valid_name(name):
        return ""
    return (
        f"'name' must be 1-{NAME_CHARS} ASCII letters, digits, '.', '-' or '_', "
        "starting with a letter or digit"
    )


def version_problem(version: object) -> str:
    """Why ``version`` is not a bot version ("" if it is one)."""
    if valid_version(version):
        return ""
    return (
        f"'version' must be 1-{VERSION_CHARS} ASCII letters, digits, '.', '+', '-' or '_', "
        'such as "1.0.0"'
    )


def parse(text: str, where: str = MANIFEST) -> Manifest:
    """Check the text of a ``bot.toml``; errors start with ``where``."""
    if len(text.encode("utf-8", "surrogatepass")) > MANIFEST_BYTES:
        raise ManifestError(f"{where}: over the limit of {MANIFEST_BYTES} bytes")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{where}: not valid TOML ({e})") from None
    name, version = data.get("name"), data.get("version")
    games, command = data.get("games"), data.get("command")
    for problem in (name_problem(name), version_problem(version)):
        if problem:
            raise ManifestError(f"{where}: {problem}")
    if (
        not isinstance(games, list)
        or not 0 < len(games) <= GAMES
        or not all(isinstance(g, str) and _GAME.fullmatch(g) for g in games)
    ):
        raise ManifestError(
            f"{where}: 'games' must list the games it plays (at most {GAMES}), or [\"*\"]"
        )
    if (
        not isinstance(command, list)
        or not 0 < len(command) <= COMMAND_ARGS
        or not all(
            isinstance(c, str) and c and len(c) <= ARG_CHARS and "\0" not in c for c in command
        )
    ):
        raise ManifestError(
            f"{where}: 'command' must be the argv that starts the bot "
            f"(1-{COMMAND_ARGS} non-empty strings of at most {ARG_CHARS} characters, no NUL)"
        )
    return Manifest(str(name), str(version), tuple(games), tuple(command))


def load(directory: str | Path) -> Manifest:
    """Read and check ``directory/bot.toml``."""
    path = Path(directory) / MANIFEST
    if not Path(directory).is_dir():
        raise ManifestError(f"{directory} is not a directory: give a bot directory or builtin:NAME")
    try:
        with path.open("rb") as f:
            raw = f.read(MANIFEST_BYTES + 1)
    except FileNotFoundError:
        raise ManifestError(f"{path} is missing: a bot directory needs a bot.toml") from None
    except OSError as e:
        raise ManifestError(f"{path}: cannot read it ({e.strerror})") from None
    if len(raw) > MANIFEST_BYTES:
        raise ManifestError(f"{path}: over the limit of {MANIFEST_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: not UTF-8 text") from None
    return parse(text, str(path))
