"""Snapshots carry the shared envelope (niwa.engine.snapshot), and only good ones load."""

from __future__ import annotations

import json
import random

import pytest

from niwa.engine.rulesets.bonsai import GAME
from tests.games.snapshots import Refusal, refusals, settled_snapshot


def test_a_snapshot_is_stamped_with_the_game_its_rules_version_and_data_hash() -> None:
    snap = settled_snapshot(GAME, 2)
    assert (snap["game"], snap["rules"], len(snap["data"])) == ("bonsai", "bonsai@2", 64)
    assert snap["state"]["phase"] == "choose"


@pytest.mark.parametrize(
    "refusal", refusals("bonsai", "bonsai@2", "deck", ("seats", 2)), ids=lambda r: r.name
)
def test_a_snapshot_of_other_rules_or_data_or_malformed_is_refused(refusal: Refusal) -> None:
    refusal.check(GAME, settled_snapshot(GAME, 2))


def test_an_observation_rebuilds_the_state_it_shows() -> None:
    snap = settled_snapshot(GAME, 2)
    observation = json.loads(json.dumps(GAME.from_json(snap).observe(1)))
    assert GAME.determinize(observation, 1, random.Random(0)).to_json() == snap
