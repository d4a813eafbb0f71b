"""The built-in bots, named ``builtin:NAME`` on the command line.

Adding one is a new module with a bot class and one line in :data:`BUILTIN`. They are
served like any bot (``python -m niwa.bots.builtin NAME``) or run in process by the referee.

A name may carry options after ``?``, URL-query style: ``mcts?seconds=0.05`` or
``mcts?iterations=200``. A bot class that takes options has a ``from_options(dict)``
class method that checks them (raising ValueError with the fix).
"""

from __future__ import annotations

import importlib
from typing import Any

from niwa.errors import BotError

#: name -> "module:Class"
BUILTIN: dict[str, str] = {
    "random": "niwa.bots.builtin.random_bot:RandomBot",
    "greedy": "niwa.bots.builtin.greedy:GreedyBot",
    "mcts": "niwa.bots.builtin.mcts:MctsBot",
    "policy": "niwa.bots.builtin.policy:PolicyBot",
}


#: Folders a built-in bot reads from the host, by the environment variable naming one
#: (``NIWA_VALUE_DIR``: learned values, niwa.bots.learned): the referee passes the
#: variable into a built-in bot's sandbox and binds the folder there, read-only.
HOST_FOLDERS = ("NIWA_VALUE_DIR",)


class UnknownBuiltin(BotError, LookupError):
    """No built-in bot has that name."""


def names() -> list[str]:
    return sorted(BUILTIN)


def split(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts?seconds=0.05"`` -> ``("mcts", {"seconds": "0.05"})``."""
    name, _, query = spec.partition("?")
    options: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise ValueError(f"bad option {part!r} in builtin:{spec}: write NAME?key=value")
        options[key] = value
    return name, options


def _bot_class(name: str) -> Any:
    """The class of the built-in bot ``name``; UnknownBuiltin naming the others."""
    target = BUILTIN.get(name)
    if target is None:
        raise UnknownBuiltin(
            f"no built-in bot {name!r}; built-in bots: {', '.join(names())}"
        )
    module, _, cls_name = target.partition(":")
    return getattr(importlib.import_module(module), cls_name)


def plays(name: str, game: str) -> bool:
    """Whether the built-in bot ``name`` can play ``game`` (a bot class may say, with a
    ``plays(game)`` class method: greedy needs the game's heuristic, policy its learned
    value; the others play any game)."""
    check = getattr(_bot_class(name), "plays", None)
    return True if check is None else bool(check(game))


def create(spec: str) -> Any:
    """A fresh instance of the built-in bot ``spec`` (a name, maybe with options)."""
    name, options = split(spec)
    cls = _bot_class(name)
    if not options:
        return cls()
    if not hasattr(cls, "from_options"):
        raise ValueError(f"builtin:{name} takes no options (given: {', '.join(options)})")
    return cls.from_options(options)
