"""Game registry: games plug in through the entry-point group ``niwa.games``.

An entry point names a :class:`engine.Game` instance (or a class to instantiate), so a
game shipped in another distribution needs no change here.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from niwa.engine.api import Game
from niwa.errors import EngineError

GROUP = "niwa.games"


class UnknownGame(EngineError, LookupError):
    """No game is registered under the name asked for."""


@cache
def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def games() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_entry_points())


@cache
def load(name: str) -> Game:
    """The game registered as ``name``."""
    ep = _entry_points().get(name)
    if ep is None:
        known = ", ".join(games())
        hint = (
            f"registered games: {known}"
            if known
            else "no game is registered: install niwa first (pip install -e .)"
        )
        raise UnknownGame(f"unknown game {name!r}; {hint}")
    obj = ep.load()
    game = obj() if isinstance(obj, type) else obj
    if not isinstance(game, Game):
        raise TypeError(f"entry point {name!r} ({ep.value}) is not an engine.Game")
    return game
