"""How the local tools (``niwa play``, ``match``, ``tournament``) name a bot: as its
author does, ``name@version`` from its bot.toml, not by its folder's path.

Only bots that would share a name (two folders declaring the same ``name@version``)
add the end of their path, just enough of it to tell them apart. A built-in keeps
``builtin:NAME``; the same folder given twice is one bot, with one name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath

from niwa.referee.match import BotSpec
from niwa.referee.text import ELLIPSIS, printable


def bot_names(specs: Sequence[BotSpec]) -> list[str]:
    """A display name per spec, in order (see the module's docstring)."""
    plain = [_plain(s) for s in specs]
    folders: dict[str, set[str]] = {}
    for spec, name in zip(specs, plain, strict=True):
        if not spec.is_builtin:
            folders.setdefault(name, set()).add(spec.target)
    tails: dict[str, str] = {}
    for targets in folders.values():
        if len(targets) > 1:
            tails.update(_distinct_tails(sorted(targets)))
    return [f"{name} ({tails[s.target]})" if s.target in tails and not s.is_builtin
            else name for s, name in zip(specs, plain, strict=True)]


def named(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The specs with their display names as labels, which replays show (a built-in
    keeps none: its ``builtin:NAME`` is its name)."""
    return [spec if spec.is_builtin or spec.is_human else replace(spec, label=name)
            for spec, name in zip(specs, bot_names(specs), strict=True)]


def _plain(spec: BotSpec) -> str:
    if spec.is_builtin:
        return str(spec)
    manifest = spec.manifest()
    return f"{manifest.name}@{manifest.version}"


def _distinct_tails(paths: Sequence[str]) -> dict[str, str]:
    """The fewest last components of each path that no two paths share."""
    parts = [PurePath(p).parts for p in paths]
    for k in range(1, max(len(p) for p in parts) + 1):
        tails = [str(PurePath(*p[-k:])) for p in parts]
        if len(set(tails)) == len(tails):
            return dict(zip(paths, tails, strict=True))
    return {p: p for p in paths}


def shown(name: str, limit: int) -> str:
    """A display name escaped for a terminal and, when longer than ``limit``, cut in
    the middle: its start is the bot's ``name@version``, its end the part of a path
    that tells two apart."""
    text = printable(name)
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (limit - 1 - head) :]
