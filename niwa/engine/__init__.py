"""niwa's sans-IO game engine: the contract every game implements, and the registry.

>>> from niwa import engine
>>> game = engine.load("blossom")
>>> state = game.new_game(players=3)
"""

from niwa.engine.api import (
    CHANCE,
    JSON,
    Action,
    BoardParts,
    ChanceTest,
    Dealer,
    Enumeration,
    Evaluation,
    FeatureEncoder,
    Game,
    GameInfo,
    IllegalAction,
    Option,
    OptionError,
    Result,
    Rng,
    State,
    canonical_json,
    describe_move,
    envelope,
    places_from_keys,
    sample_chance,
    state_hash,
)
from niwa.engine.registry import UnknownGame, games, load
from niwa.engine.snapshot import SnapshotError

__all__ = [
    "CHANCE",
    "JSON",
    "Action",
    "BoardParts",
    "ChanceTest",
    "Dealer",
    "Enumeration",
    "Evaluation",
    "FeatureEncoder",
    "Game",
    "GameInfo",
    "IllegalAction",
    "Option",
    "OptionError",
    "Result",
    "Rng",
    "SnapshotError",
    "State",
    "UnknownGame",
    "canonical_json",
    "describe_move",
    "envelope",
    "games",
    "load",
    "places_from_keys",
    "sample_chance",
    "state_hash",
]
