"""Blossom's rules data (data/rules.json; rules: docs/games/blossom.md) as typed constants."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import Any, Final

#: The rules version: observations carry it, snapshots are stamped with it.
VERSION: Final = "blossom@2"
#: The data files the rules are read from (hashed into every snapshot).
DATA_FILES: Final = ("rules.json",)

_DATA: Final[dict[str, Any]] = json.loads(
    files("niwa.engine.rulesets.blossom").joinpath("data/rules.json").read_text(encoding="utf-8")
)

#: Card kinds in a fixed order; multisets are lists of counts in this order.
KINDS: Final[tuple[str, ...]] = tuple(k["id"] for k in _DATA["kinds"])
KIND_INDEX: Final[dict[str, int]] = {k: i for i, k in enumerate(KINDS)}
NAMES: Final[dict[str, str]] = {k["id"]: k["name"] for k in _DATA["kinds"]}
FULL_DECK: Final[tuple[int, ...]] = tuple(k["count"] for k in _DATA["kinds"])  # §2: 33 cards

CHERRY, CHRYSANTH, CAMELLIA, ROSE, LILY, ANEMONE = range(6)
assert KINDS == ("cherry", "chrysanth", "camellia", "rose", "lily", "anemone")

REMOVED_UNSEEN: Final[dict[int, int]] = {
    int(k): v for k, v in _DATA["removed_unseen"].items() if k.isdigit()
}
HAND_DEAL: Final[int] = _DATA["hand_deal"]["value"]
GARDEN_DEAL: Final[int] = _DATA["garden_deal"]["value"]
HAND_LIMIT: Final[int] = _DATA["hand_limit"]["value"]
YARD_LIMIT: Final[int] = _DATA["yard_limit"]["value"]
ACTIONS_PER_TURN: Final[int] = _DATA["actions_per_turn"]["value"]
END_SCORE: Final[int] = _DATA["end_score"]["value"]
SCORE_STEP: Final[int] = _DATA["score_step"]["value"]
CHERRY_POINTS: Final[int] = _DATA["cherry_points"]["value"]
CHERRY_MAX_DRAW: Final[int] = _DATA["cherry_max_draw"]["value"]
CHERRY_GARDEN_FILL_MIN_HAND: Final[int] = _DATA["cherry_garden_fill_min_hand"]["value"]


def counts_to_json(counts: list[int]) -> dict[str, int]:
    """A multiset as ``{kind: count}`` with every kind present, in KINDS order."""
    return {k: counts[i] for i, k in enumerate(KINDS)}


def counts_from_json(data: dict[str, int]) -> list[int]:
    return [int(data.get(k, 0)) for k in KINDS]


def cards_to_list(counts: list[int]) -> list[str]:
    """A multiset as a sorted list of kind names (the spelling actions use)."""
    return [k for i, k in enumerate(KINDS) for _ in range(counts[i])]


def sub_multisets(
    counts: Sequence[int], min_size: int, max_size: int
) -> tuple[tuple[str, ...], ...]:
    """Every sub-multiset of ``counts`` with a size in [min_size, max_size], each as a
    sorted tuple of kind names (the spelling actions use)."""
    return _sub_multisets(tuple(counts), min_size, max_size)


@cache
def _sub_multisets(counts: tuple[int, ...], lo: int, hi: int) -> tuple[tuple[str, ...], ...]:
    out: list[list[int]] = [[]]
    for c in counts:
        out = [[*prefix, n] for prefix in out for n in range(c + 1)]
    return tuple(tuple(cards_to_list(m)) for m in out if lo <= sum(m) <= hi)
