"""Sakura's feature encoding, version 2: the line of painters read as the next scoring
would read it (sakura.md §7), and the court painter of a two-player game (§9)."""

from __future__ import annotations

import numpy as np
import pytest

from niwa.engine.rulesets.sakura import features as f
from niwa.engine.rulesets.sakura.state import SakuraState

from .table import table

_START = len(f.PHASES) + 5 + f.SAKURA_SLOTS + f._NEXT
_COURT = _START + f.MAX_SEATS * f._SEAT


def row(state: SakuraState, seat: int = 0) -> np.ndarray:
    out = np.zeros(f.SIZE, np.float32)
    f.write(state.observe(seat), out)
    fast = np.zeros(f.SIZE, np.float32)
    f.write_state(state, seat, fast)
    assert np.array_equal(out, fast)
    return out


def line(x: np.ndarray, k: int) -> list[float]:
    """The line features of the k-th seat from the viewer: gap, right behind, earns, lead."""
    at = _START + k * f._SEAT + 3
    return [round(float(v), 4) for v in x[at : at + 4]]


def earns(x: np.ndarray, players: int) -> list[float]:
    return [line(x, k)[2] * f._REWARD for k in range(players)]


def test_each_painter_is_credited_the_tokens_its_place_earns_at_the_next_sakura() -> None:
    x = row(table(3, emperor=11, painters=[8, 7, 5]))
    assert earns(x, 3) == [3.0, 2.0, 1.0]


def test_the_first_place_at_the_last_sakura_earns_four() -> None:
    x = row(table(3, emperor=25, painters=[5, 20, 7], scored=[True, True, False]))
    assert earns(x, 3) == [1.0, 4.0, 2.0]


def test_the_supply_pays_the_line_in_order_until_it_runs_out() -> None:
    s = table(3, emperor=11, painters=[8, 7, 5])
    s.garden.supply = 4
    assert earns(row(s), 3) == [3.0, 1.0, 0.0]


def test_painters_sharing_the_gate_are_unranked_and_earn_nothing() -> None:
    x = row(table(3, emperor=11, painters=[6, 0, 0]))
    assert earns(x, 3) == [3.0, 0.0, 0.0]


def test_seats_are_read_from_the_viewer_on() -> None:
    x = row(table(3, emperor=11, painters=[8, 7, 5]), seat=1)
    assert earns(x, 3) == [2.0, 1.0, 3.0]


def test_the_painter_right_behind_the_emperor_is_marked_and_its_gap_is_one() -> None:
    x = row(table(3, emperor=11, painters=[10, 7, 5]))
    assert line(x, 0)[:2] == [round(1 / f._TRACK, 4), 1.0]
    assert line(x, 1)[1] == 0.0


def test_a_seat_s_lead_is_over_the_best_other_seat() -> None:
    x = row(table(3, emperor=11, painters=[8, 7, 5], tokens=[9, 6, 4]))
    assert [line(x, k)[3] * f._TOKENS for k in range(3)] == pytest.approx([3.0, -3.0, -5.0])


def test_the_court_painter_of_a_two_player_game_is_encoded() -> None:
    near = row(table(2, emperor=11, painters=[5, 4, 9]))
    far = row(table(2, emperor=11, painters=[5, 4, 2]))
    block = slice(_COURT, _COURT + 1 + f._PAINTER)
    assert near[_COURT] == 1.0
    assert not np.array_equal(near[block], far[block])
    # the court painter ahead takes the first reward from the seats
    assert earns(near, 2) == [2.0, 1.0]
    assert earns(far, 2) == [3.0, 2.0]


def test_games_of_three_or_more_have_no_court_painter_block() -> None:
    x = row(table(3, emperor=11, painters=[8, 7, 5]))
    assert not x[_COURT : _COURT + f._COURT].any()
