"""Shared checks of the snapshot envelope (niwa.engine.snapshot) for each game's tests: a
snapshot of other rules, other data, another game or a malformed state is refused with
an error that names the cause."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from niwa.engine import CHANCE, Game, SnapshotError

Snapshot = dict[str, Any]


def settled_snapshot(game: Game, players: int) -> Snapshot:
    """The JSON snapshot of a new game once its set-up chance is played (first outcome)."""
    state = game.new_game(players)
    while state.to_move() == (CHANCE,):
        state.apply({CHANCE: state.chance_outcomes()[0][0]})
    snap: Snapshot = json.loads(json.dumps(state.to_json()))
    return snap


@dataclass(frozen=True)
class Refusal:
    """A change that spoils a good snapshot, and the error ``from_json`` must give."""

    name: str
    spoil: Callable[[Snapshot], None]
    message: str

    def check(self, game: Game, snapshot: Snapshot) -> None:
        self.spoil(snapshot)
        with pytest.raises(SnapshotError, match=self.message):
            game.from_json(snapshot)


def _set(where: str, key: str, value: object) -> Callable[[Snapshot], None]:
    def spoil(snap: Snapshot) -> None:
        (snap if where == "envelope" else snap["state"])[key] = value

    return spoil


def _drop(key: str) -> Callable[[Snapshot], None]:
    return lambda snap: snap["state"].pop(key)


def refusals(game: str, rules: str, field: str, wrong_type: tuple[str, object]) -> list[Refusal]:
    """The refusals every game's snapshots show: ``field`` is dropped, and the state field
    ``wrong_type[0]`` gets the value ``wrong_type[1]``."""
    return [
        Refusal(
            "another rules version",
            _set("envelope", "rules", f"{game}@999"),
            rf"rules {game}@999 .*installed: rules {rules}",
        ),
        Refusal(
            "other rules data",
            _set("envelope", "data", "0" * 64),
            r"data sha256 000000000000; installed",
        ),
        Refusal(
            "another game",
            _set("envelope", "game", "chess"),
            rf"snapshot of 'chess', not of '{game}'",
        ),
        Refusal(
            "a missing state field",
            _drop(field),
            rf"malformed {game} snapshot state \(missing {field}\)",
        ),
        Refusal(
            "a state field of the wrong type",
            _set("state", *wrong_type),
            rf"malformed {game} snapshot state: a field has the wrong type",
        ),
    ]
