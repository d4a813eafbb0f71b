"""Elo differences in the ladder's text and pages carry their sign; none reads "-0"."""

from __future__ import annotations

import math

import pytest

from niwa.ladder.elo import fmt_elo
from niwa.ladder.report import signed


@pytest.mark.parametrize(
    ("value", "shown"), [(-23.4, "-23"), (17.6, "+18"), (0.0, "+0"), (-0.4, "+0"), (0.4, "+0")]
)
def test_an_elo_difference_shows_its_sign_and_nothing_rounding_to_0_reads_minus(
    value: float, shown: str
) -> None:
    assert signed(value) == shown


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [(-0.04, 1, "+0.0"), (-0.06, 1, "-0.1"), (12.34, 1, "+12.3"), (-math.inf, 0, "-inf")],
)
def test_the_shared_elo_format_reads_no_minus_zero_at_any_precision(
    value: float, digits: int, shown: str
) -> None:
    assert fmt_elo(value, digits) == shown
