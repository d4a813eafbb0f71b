"""The hashed observation features."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install niwa[rl])")

import numpy as np

from niwa.adapters.features import encode
from niwa.engine.registry import load


def test_the_same_observation_gives_the_same_vector_of_the_asked_size() -> None:
    observation = load("miyabi").new_game(2).observe(0)
    a, b = encode(observation, 64), encode(observation, 64)
    assert a.shape == (64,) and a.dtype == np.float32
    assert np.array_equal(a, b)


def test_numbers_add_their_value_and_strings_count_one_under_their_path() -> None:
    vector = encode({"score": 7, "kind": "rose", "up": True, "none": None}, 4096)
    assert sorted(vector[vector != 0].tolist()) == [1.0, 1.0, 1.0, 7.0]


def test_a_changed_leaf_changes_the_vector() -> None:
    assert not np.array_equal(encode({"hand": ["rose"]}), encode({"hand": ["lily"]}))
