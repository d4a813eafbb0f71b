"""Sakura scoring: rewards at a sakura space and the final ranking (sakura.md §7, §8)."""

from __future__ import annotations

from functools import cache

from niwa.engine.api import Result, places_from_keys
from niwa.engine.rulesets.sakura.garden import Garden
from niwa.engine.rulesets.sakura.rules import config


@cache
def rewards_for(players: int, last: bool) -> tuple[int, ...]:
    """Tokens for the 1st, 2nd, ... painter: 3/2/1, 4 for 1st at the last sakura, and a
    4th-place token with 5-6 players (sakura.md §7). Fixed per player count and sakura:
    built once (a search and the features ask for them at every position)."""
    return config().rewards_for(players, last)


def final_places(garden: Garden, players: int, court_competes: bool) -> Result:
    """Most tokens wins; a tie goes to the tied painter nearest the Emperor; painters
    still tied (only possible on the gate) share the place (sakura.md §8, DECIDED).

    Scores are the seats' tokens. The court painter of a two-player game is ranked only
    when it may win (``courtCanWin``, sakura.md §9): then a seat's place counts the court
    painter too, so a court win leaves no seat in place 0."""
    keys = [(garden.tokens[p], garden.painters[p]) for p in range(len(garden.painters))]
    scores = tuple(float(t) for t in garden.tokens[:players])
    if court_competes:
        places = tuple(sum(1 for other in keys if other > keys[s]) for s in range(players))
    else:
        places = places_from_keys(keys[:players])
    return Result(scores=scores, places=places)
