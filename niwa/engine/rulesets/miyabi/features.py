"""Miyabi's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): every garden's heights and top objects per cell, the tiles left
per kind, read from the seat's observation only. Gardens are listed from the viewer on
(own first), so one policy serves every seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine.api import JSON, FeatureEncoder
from niwa.engine.rulesets.miyabi import rules
from niwa.engine.rulesets.miyabi.actions import Phase

VERSION = "miyabi-features/1"
PHASES = tuple(Phase)
MAX_SEATS = 4
SHAPES = rules.SHAPES
#: what a cell's top may show (views.py): an object type or "green", one slot each
_TOP: dict[str, int] = {name: i for i, name in enumerate((*rules.TYPES, "green"))}
TOP_SLOTS = len(_TOP)
_CELLS = rules.SIZE * rules.SIZE
#: per garden: height and top one-hot per cell, lanterns per column, score, passed
_GARDEN = _CELLS * (1 + TOP_SLOTS) + rules.SIZE + 2
_KINDS = len(rules.KIND_NAMES)
SIZE = len(PHASES) + MAX_SEATS + 2 + len(SHAPES) + 3 * _KINDS + MAX_SEATS * _GARDEN


def _counts(table: Any) -> list[float]:
    return [float(table.get(shape, {}).get(obj, 0)) for shape, obj in rules.KIND_NAMES]


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    x = [1.0 if obs["phase"] == p else 0.0 for p in PHASES]
    current = [0.0] * MAX_SEATS
    if obs["current"] is not None:
        current[(obs["current"] - seat) % players] = 1.0
    x += current
    x += [obs["round"] / max(1, obs["rounds"]), float(obs["rounds"] - obs["round"])]
    chosen = obs["chosen"]
    x += [1.0 if chosen and chosen["shape"] == s else 0.0 for s in SHAPES]
    x += _counts(obs["supply"]) + _counts(obs["display"]) + _counts(obs["removed"])
    row[: len(x)] = x
    at = len(x)
    for k in range(players):
        garden = obs["gardens"][(seat + k) % players]
        flat: list[float] = []
        for line in garden["height"]:
            flat += line
        row[at : at + _CELLS] = flat
        at += _CELLS
        for cell, name in enumerate(name for line in garden["top"] for name in line):
            if name is not None:
                row[at + cell * TOP_SLOTS + _TOP[name]] = 1.0
        at += _CELLS * TOP_SLOTS
        row[at : at + rules.SIZE] = [float(v) for v in garden["lanterns"]]
        at += rules.SIZE
        row[at] = garden["score"] / 100.0
        row[at + 1] = float(garden["passed"])
        at += 2


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent gardens are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write)
