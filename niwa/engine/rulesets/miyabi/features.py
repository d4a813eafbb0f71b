"""Miyabi's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): every garden's heights and top objects per cell, the tiles left
per kind, read from the seat's observation only. Gardens are listed from the viewer on
(own first), so one policy serves every seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, FeatureEncoder, phase_and_mover
from niwa.engine.rulesets.miyabi import rules
from niwa.engine.rulesets.miyabi.actions import Phase

if TYPE_CHECKING:
    from niwa.engine.rulesets.miyabi.garden import Garden
    from niwa.engine.rulesets.miyabi.state import MiyabiState

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


#: the objects of each shape's kinds, in KIND_NAMES order
_BY_SHAPE: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (shape, tuple(o for s, o in rules.KIND_NAMES if s == shape))
    for shape in dict.fromkeys(s for s, _ in rules.KIND_NAMES)
)
#: a cell's top as one-hot slots (None: nothing on it)
_ONE_HOT: dict[str | None, list[float]] = {
    None: [0.0] * TOP_SLOTS,
    **{name: [1.0 if i == slot else 0.0 for i in range(TOP_SLOTS)] for name, slot in _TOP.items()},
}


def _counts(table: Any) -> list[float]:
    x: list[float] = []
    for shape, objects in _BY_SHAPE:
        counts = table.get(shape) or {}
        x += [counts.get(o, 0) for o in objects]
    return x


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    x = phase_and_mover(observation, PHASES, MAX_SEATS)
    x += [obs["round"] / max(1, obs["rounds"]), float(obs["rounds"] - obs["round"])]
    chosen = obs["chosen"]
    x += [1.0 if chosen and chosen["shape"] == s else 0.0 for s in SHAPES]
    x += _counts(obs["supply"]) + _counts(obs["display"]) + _counts(obs["removed"])
    one_hot = _ONE_HOT
    for k in range(players):
        garden = obs["gardens"][(seat + k) % players]
        for line in garden["height"]:
            x += line
        for line in garden["top"]:
            for name in line:
                x += one_hot[name]
        x += garden["lanterns"]
        x += [garden["score"] / 100.0, garden["passed"]]
    row[: len(x)] = x


#: the state's tile counts (KIND_NAMES order) in the order ``_counts`` lists them
_COUNT_ORDER = tuple(
    rules.KIND_BY_NAMES[shape, o] for shape, objects in _BY_SHAPE for o in objects
)
#: whether that order is the state's own (it is: kinds are numbered shape by shape)
_IN_STATE_ORDER = list(_COUNT_ORDER) == list(range(_KINDS))
_PHASE_SLOT = {p: i for i, p in enumerate(PHASES)}
#: the chosen tile's shape as a one-hot, by shape index (-1: none chosen)
_SHAPE_ONE_HOT = {
    shape: [1.0 if shape == i else 0.0 for i in range(len(SHAPES))]
    for shape in range(-1, len(SHAPES))
}
_GREEN = _TOP["green"]


#: per garden: the length of its heights and top one-hots
_BOARD = _CELLS * (1 + TOP_SLOTS)


def _write_garden(garden: Garden, row: Any, at: int) -> None:
    """A garden's features into ``row[at:]`` (zeroed). Its heights and top one-hots
    follow from its tiles alone, the rest from its lanterns, score and pass, so the
    encoded slice is kept on the garden until one of them changes, and copied back as
    one array."""
    key = (len(garden.tiles), garden.score, garden.passed, *garden.lanterns)
    kept, end = garden.kept_features, at + _GARDEN
    if kept is not None and kept[0] == key:
        row[at:end] = kept[1]
        return
    if kept is not None and kept[0][0] == key[0]:  # the same board: only the rest changed
        row[at:end] = kept[1]
    else:
        row[at : at + _CELLS] = garden.heights
        tops_at, tiles, ones = at + _CELLS, garden.tiles, []
        for cell, index in enumerate(garden.top):
            if index >= 0:
                t = tiles[index]
                slot = t.row if cell == t.row * rules.SIZE + t.col else _GREEN
                ones.append(tops_at + cell * TOP_SLOTS + slot)
        row[ones] = 1.0
    row[at + _BOARD : end] = [*garden.lanterns, garden.score / 100.0, garden.passed]
    garden.kept_features = key, row[at:end].copy()


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree): each
    garden is copied in as one kept slice, not built cell by cell."""
    s: MiyabiState = state
    players = s.players
    x = [0.0] * (len(PHASES) + MAX_SEATS)
    x[_PHASE_SLOT[s.phase]] = 1.0
    x[len(PHASES) + (s.current - seat) % players] = 1.0  # as write reads "current"
    x += [s.round / max(1, s.rules.rounds), float(s.rules.rounds - s.round)]
    x += _SHAPE_ONE_HOT[-1 if s.chosen < 0 else rules.shape_of(s.chosen)]
    for counts in (s.supply, s.display, s.removed):
        x += counts if _IN_STATE_ORDER else [counts[k] for k in _COUNT_ORDER]
    at = len(x)
    row[:at] = x
    for k in range(players):
        _write_garden(s.gardens[(seat + k) % players], row, at)
        at += _GARDEN


#: where each garden's slice starts
_GARDENS_AT = len(PHASES) + MAX_SEATS + 2 + len(SHAPES) + 3 * _KINDS
#: the named parts: "cells", every garden's heights and top objects cell by cell (1,152
#: of the 1,270 inputs; a learned value fitted on them learns the games it saw by heart,
#: docs/rl.md)
GROUPS = {
    "cells": tuple(
        (_GARDENS_AT + k * _GARDEN, _GARDENS_AT + k * _GARDEN + _BOARD) for k in range(MAX_SEATS)
    ),
}


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent gardens are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state, GROUPS)
