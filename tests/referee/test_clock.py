from __future__ import annotations

import pytest

from niwa.referee.clock import Clock, TimeControl
from niwa.referee.match import MatchSpec, _Match
from tests.referee.toy import GAME


def test_time_control_is_per_decision_plus_bank() -> None:
    assert TimeControl.parse("1s+30s") == TimeControl(1000, 30_000)


def test_time_control_accepts_milliseconds_and_minutes() -> None:
    assert TimeControl.parse("250ms+2m") == TimeControl(250, 120_000)


def test_time_control_without_bank_has_an_empty_bank() -> None:
    assert TimeControl.parse("2s") == TimeControl(2000, 0)


def test_time_control_prints_as_it_is_written() -> None:
    assert str(TimeControl.parse("500ms+30s")) == "500ms+30s"


@pytest.mark.parametrize("text", ["", "fast", "1h", "0s+1s", "1s+x"])
def test_bad_time_control_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(ValueError, match="1s\\+30s"):
        TimeControl.parse(text)


def test_decision_within_its_allowance_leaves_the_bank_untouched() -> None:
    clock = Clock(TimeControl(1000, 5000))
    assert clock.charge(900)
    assert clock.time_left_ms() == 6000


def test_decision_over_its_allowance_draws_on_the_bank() -> None:
    clock = Clock(TimeControl(1000, 5000))
    assert clock.charge(3000)
    assert clock.time_left_ms() == 4000


def test_decision_over_allowance_and_bank_times_out_and_empties_the_bank() -> None:
    clock = Clock(TimeControl(1000, 5000))
    assert not clock.charge(6500)
    assert clock.time_left_ms() == 1000


def _wall_clock_match() -> _Match:
    return _Match(MatchSpec(game=GAME, bots=[]), GAME, {})  # a match charging wall time


def test_a_wall_clock_timeout_names_the_limit_and_the_cpu_used() -> None:
    match = _wall_clock_match()
    assert match.clock == "wall"
    assert match.timeout_detail(2966, 2971.4, 812.6) == (
        "no answer within 2966 ms (wall clock; used 813 ms of CPU)"
    )
    assert match.timeout_detail(1000, 1003, None) == (
        "no answer within 1000 ms (wall clock; CPU not measured)"
    )


def test_a_late_wall_clock_answer_names_its_time_and_the_time_left() -> None:
    assert _wall_clock_match().over_detail(1000, 1203.7, 90) == (
        "answered after 1204 ms with 1000 ms left (wall clock)"
    )


def test_a_late_cpu_clock_answer_names_both_clocks() -> None:
    match = _wall_clock_match()
    match.clock = "cpu"
    assert match.over_detail(1300, 1420.2, 1351.9) == (
        "answered after 1352 ms of CPU with 1300 ms left (1420 ms of wall time)"
    )
