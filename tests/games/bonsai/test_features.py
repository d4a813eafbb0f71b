"""The feature encoding's fast path (features.write_state) keeps each seat's block until
the seat's bonsai, cards or goals change: what it writes must follow every change."""

from __future__ import annotations

import numpy as np

from niwa.engine.rulesets.bonsai.features import SIZE, write, write_state
from niwa.engine.rulesets.bonsai.rules import FRUIT, key
from niwa.engine.rulesets.bonsai.state import BonsaiState

from .table import cells, table


def fast(state: BonsaiState, seat: int) -> np.ndarray:
    row = np.zeros(SIZE, np.float32)
    write_state(state, seat, row)
    return row


def slow(state: BonsaiState, seat: int) -> np.ndarray:
    row = np.zeros(SIZE, np.float32)
    write(state.observe(seat), row)
    return row


def test_a_tile_shed_and_another_placed_at_the_same_count_is_encoded_anew() -> None:
    s = table()
    s.seats[0].tree = cells((1, 1, "leaf"), (-1, 1, "leaf"), (0, 2, "flower"))
    before = fast(s, 0)  # kept on the seat from here
    s.seats[0].remove(key(1, 1))
    s.seats[0].place(key(1, 1), FRUIT)  # as many tiles as before, another score
    assert np.array_equal(fast(s, 0), slow(s, 0))
    assert not np.array_equal(fast(s, 0), before)


def test_a_card_taken_is_encoded_for_every_viewer() -> None:
    s = table()
    before = [fast(s, seat) for seat in (0, 1)]
    s.seats[1].cards.append("tool")
    for seat in (0, 1):
        assert np.array_equal(fast(s, seat), slow(s, seat))
        assert not np.array_equal(fast(s, seat), before[seat])
