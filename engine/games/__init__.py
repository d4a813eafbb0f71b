"""The built-in games, one package each (engine/games/<name>/).

DESIGN.md names both ``engine.games()`` (the registry listing) and this package. Importing
a game sets the attribute ``engine.games`` to this package, which would shadow the
function, so the package itself is made callable and answers as the function does.
"""

from __future__ import annotations

import sys
import types


class _CallableGamesPackage(types.ModuleType):
    def __call__(self) -> list[str]:
        from engine.registry import games

        return games()


sys.modules[__name__].__class__ = _CallableGamesPackage
