"""The feature encoding's fast path (features.write_state) packs the row's floats
itself: it must write what the slow path writes, into any float32 row it is given."""

from __future__ import annotations

import numpy as np

from niwa.engine.rulesets.blossom import BlossomState
from niwa.engine.rulesets.blossom.features import SIZE, write, write_state

from .table import table


def slow(state: BlossomState, seat: int) -> np.ndarray:
    row = np.zeros(SIZE, np.float32)
    write(state.observe(seat), row)
    return row


def test_a_row_that_is_not_one_contiguous_buffer_gets_the_same_features() -> None:
    s = table(
        2,
        hands=["rose lily lily", "cherry"],
        yards_up=["anemone", "camellia camellia"],
        yards_down=["chrysanth", ""],
        garden="rose anemone",
        scores=[9, 12],
        current=1,
    )
    batch = np.zeros((SIZE, 3), np.float32)  # a column: every other float is not its
    write_state(s, 0, batch[:, 1])
    assert np.array_equal(batch[:, 1], slow(s, 0))
    assert not batch[:, 0].any() and not batch[:, 2].any()


def test_every_player_count_fills_the_head_and_the_viewers_own_tail() -> None:
    for players in (2, 3, 4):
        s = table(players, hands=["rose"] * players, yards_down=["lily"] * players)
        for seat in range(players):
            row = np.zeros(SIZE, np.float32)
            write_state(s, seat, row)
            assert np.array_equal(row, slow(s, seat)), (players, seat)


def test_a_float64_row_gets_the_same_values_not_float32_bytes() -> None:
    s = table(2, hands=["rose lily", ""], yards_up=["anemone", ""], scores=[9, 3])
    wide = np.zeros(SIZE, np.float64)
    write_state(s, 0, wide)
    assert np.array_equal(wide.astype(np.float32), slow(s, 0))
