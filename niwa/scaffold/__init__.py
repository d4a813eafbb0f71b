"""``niwa new-game NAME``: a new game's plug-in distribution, written from the templates
in ``template/`` (package data, each file ``*.tmpl``).

The templates are a small but complete game (deal, simultaneous play, hidden hands), so
the new distribution installs, registers and passes niwa's conformance suite before its
author changes a line. Placeholders are plain words (``__NAME__``, ``__PACKAGE__``,
``__CLASS__``, ``__TITLE__``) rather than ``$name``: the JavaScript template uses ``${}``.
"""

from __future__ import annotations

import re
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from niwa.errors import CommandError

#: A game's name: what ``niwa play NAME`` and replays say, and the package's suffix.
NAME = re.compile(r"[a-z][a-z0-9]{1,29}")


class ScaffoldError(CommandError):
    """The plug-in cannot be written; the message says why and what to do."""


def check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise ScaffoldError(
            f"{name[:40]!r} cannot name a game: use 2 to 30 lowercase letters and digits, "
            "starting with a letter (e.g. hanafuda)"
        )
    from niwa import engine  # the registry; imported here to keep `--help` quick

    if name in engine.games():
        raise ScaffoldError(f"a game named {name!r} is already registered: pick another name")


def placeholders(name: str) -> dict[str, str]:
    return {
        "__PACKAGE__": f"niwa_{name}",
        "__CLASS__": name.capitalize(),
        "__TITLE__": name.capitalize(),
        "__NAME__": name,
    }


def make(name: str, parent: Path) -> Path:
    """Write ``parent/NAME-plugin/`` (``parent`` made if missing) and return it; refuses
    a folder that exists."""
    check_name(name)
    target = parent / f"{name}-plugin"
    if target.exists():
        raise ScaffoldError(f"{target} already exists: remove it, or pass --dir elsewhere")
    if parent.exists() and not parent.is_dir():
        raise ScaffoldError(f"{parent} is a file, not a folder: pass --dir a folder")
    parent.mkdir(parents=True, exist_ok=True)  # --dir ~/games as a new folder is fine
    words = placeholders(name)
    _write(files(__package__) / "template", target, words)
    return target


def _write(source: Traversable, target: Path, words: dict[str, str]) -> None:
    """Every template under ``source`` written below ``target``, placeholders filled."""
    for entry in sorted(source.iterdir(), key=lambda e: e.name):
        name = entry.name
        if entry.is_dir():
            folder = target / ("niwa_" + words["__NAME__"] if name == "package" else name)
            _write(entry, folder, words)
            continue
        if not name.endswith(".tmpl"):
            continue
        name = name.removesuffix(".tmpl")
        if name == "RULES.md":
            name = f"{words['__NAME__']}.md"
        text = entry.read_text("utf-8")
        for word, value in words.items():
            text = text.replace(word, value)
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
