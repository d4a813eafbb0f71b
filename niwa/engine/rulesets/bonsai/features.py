"""Bonsai's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): each seat's supply, cards by family, tree tiles by type and score
parts, the board's cards and the deck's size, read from the seat's observation only.
Seats are listed from the viewer on (own first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, FeatureEncoder, phase_and_mover
from niwa.engine.rulesets.bonsai.actions import Phase

VERSION = "bonsai-features/1"
PHASES = tuple(Phase)
MAX_SEATS = 4
BOARD_SLOTS = 4
TILES = ("wood", "leaf", "flower", "fruit")
FAMILIES = ("tool", "growth", "master", "helper", "parchment")
SCORE_PARTS = ("leaf", "flower", "fruit", "parchments", "goals", "total")
#: per seat: supply, cards by family, tiles by type, tile count, claimed goals, capacity,
#: score parts
_SEAT = 2 * len(TILES) + len(FAMILIES) + 3 + len(SCORE_PARTS)
SIZE = len(PHASES) + MAX_SEATS + 4 + BOARD_SLOTS * len(FAMILIES) + MAX_SEATS * _SEAT


def _families(cards: Any) -> list[float]:
    counts = dict.fromkeys(FAMILIES, 0.0)
    for card in cards:  # an empty board slot is None
        family = "" if card is None else card.partition(":")[0]
        if family in counts:
            counts[family] += 1.0
    return list(counts.values())


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    x = phase_and_mover(observation, PHASES, MAX_SEATS)
    x += [
        obs["deck_size"] / 50.0, float(obs["turns_left"]), float(obs["end_triggered"]),
        len(obs["goals_open"]) / 15.0,
    ]  # fmt: skip
    for card in obs["board"][:BOARD_SLOTS]:
        x += _families([card])
    x += [0.0] * ((BOARD_SLOTS - len(obs["board"][:BOARD_SLOTS])) * len(FAMILIES))
    for k in range(players):
        s = (seat + k) % players
        one, score = obs["seats"][s], obs["scores"][s]
        x += [float(one["supply"][t]) for t in TILES]
        x += _families(one["cards"])
        tiles = dict.fromkeys(TILES, 0.0)
        placed = 0
        for tree in one["trees"]:
            for _q, _r, tile in tree:
                tiles[tile] = tiles.get(tile, 0.0) + 1.0
                placed += 1
        x += [tiles[t] for t in TILES]
        x += [placed / 20.0, float(len(one["claimed"])), float(obs["capacity"][s])]
        x += [score[p] / 20.0 for p in SCORE_PARTS]
    x += [0.0] * ((MAX_SEATS - players) * _SEAT)
    row[:] = x


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write)
