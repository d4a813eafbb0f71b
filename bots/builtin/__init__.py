"""The built-in bots, named ``builtin:NAME`` on the command line.

Adding one is a new module with a bot class and one line in :data:`BUILTIN`. They are
served like any bot (``python -m bots.builtin NAME``) or run in process by the referee.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name -> "module:Class"
BUILTIN: dict[str, str] = {
    "random": "bots.builtin.random_bot:RandomBot",
    "greedy": "bots.builtin.greedy:GreedyBot",
    "mcts": "bots.builtin.mcts:MctsBot",
}


class UnknownBuiltin(LookupError):
    """No built-in bot has that name."""


def names() -> list[str]:
    return sorted(BUILTIN)


def create(name: str) -> Any:
    """A fresh instance of the built-in bot ``name``."""
    target = BUILTIN.get(name)
    if target is None:
        raise UnknownBuiltin(
            f"no built-in bot {name!r}; built-in bots: {', '.join(names())}"
        )
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)()
