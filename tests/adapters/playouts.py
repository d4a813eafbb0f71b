"""Every registered game at every player count, for the adapters' tests."""

from __future__ import annotations

from niwa.engine.registry import games, load

#: (game, players) for every registered game and player count.
TABLES = [
    (name, n)
    for name in games()
    for n in range(load(name).info.min_players, load(name).info.max_players + 1)
]
