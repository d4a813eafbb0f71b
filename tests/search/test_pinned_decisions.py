"""The search's decisions with a fixed seed, pinned: a change made for speed must not
change what the search plays. Every game and player count (two players up), three
positions, the heuristic at 120 iterations and full rollouts at 30, seed 7.

A change that is meant to alter decisions (rules, heuristics, the search itself)
rewrites the pins: ``python -m tests.search.test_pinned_decisions --write``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from niwa import engine
from niwa.bots import heuristics
from niwa.bots.search import ISMCTS, SearchLimits
from tests.search.test_mcts import midgame

PINS = Path(__file__).parent / "data" / "pinned_decisions.json"
GAMES = ("blossom", "sakura", "miyabi", "bonsai")


def decisions(name: str) -> list[dict[str, Any]]:
    """What the search answers at each pinned position of ``name``."""
    game = engine.load(name)
    out = []
    for players in range(max(2, game.info.min_players), game.info.max_players + 1):
        for moves in (4, 12, 24):
            for heuristic in (True, False):
                state = midgame(name, players=players, moves=moves)
                seat = state.to_move()[0]
                search = ISMCTS(game, heuristics.for_game(name) if heuristic else None,
                                rng=random.Random(7))
                index, stats = search.choose(
                    state.observe(seat), seat, state.legal_actions(seat),
                    SearchLimits(iterations=120 if heuristic else 30))
                out.append({"players": players, "moves": moves, "heuristic": heuristic,
                            "index": index, **stats})
    return out


@pytest.mark.parametrize("name", GAMES)
def test_the_search_with_a_fixed_seed_makes_the_pinned_decisions(name: str) -> None:
    pinned = json.loads(PINS.read_text())[name]
    assert decisions(name) == pinned


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    PINS.write_text(json.dumps({name: decisions(name) for name in GAMES}, indent=1) + "\n")
