"""Snapshots carry the shared envelope (engine.snapshot), and only good ones load."""

from __future__ import annotations

import pytest

from engine import SnapshotError
from engine.rulesets.miyabi import GAME
from tests.games.snapshots import Refusal, refusals, settled_snapshot


@pytest.mark.parametrize(
    "refusal", refusals("miyabi", "miyabi@2", "supply", ("round", "one")), ids=lambda r: r.name
)
def test_a_snapshot_of_other_rules_or_data_or_malformed_is_refused(refusal: Refusal) -> None:
    refusal.check(GAME, settled_snapshot(GAME, 3))


def test_a_snapshot_with_an_unknown_phase_is_refused() -> None:
    snap = settled_snapshot(GAME, 3)
    snap["state"]["phase"] = "feast"
    with pytest.raises(SnapshotError, match=r"unknown phase 'feast'"):
        GAME.from_json(snap)


def test_a_snapshot_records_the_round_and_whose_turn_it_is() -> None:
    state = settled_snapshot(GAME, 3)["state"]
    assert (state["round"], state["phase"], state["current"]) == (1, "choose", 0)
